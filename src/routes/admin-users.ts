import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { Type, type Static, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { USER_GROUPS, UserStoreError, type User, type UserGroup, type UserStoreErrorCode } from '../db/users.js';
import { normaliseAddress } from '../auth/addresses.js';
import { generatePassword, hashPassword, passwordProblem, verifyPassword } from '../auth/passwords.js';
import { ApiError, ErrorBody, apiErrorHandler } from '../http-errors.js';

/** The public user record: the only shape a user leaves the server in (the serializer drops anything else). */
export const PublicUser = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  group: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
  founder: Type.Boolean(),
  notifiate: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

// Fields are optional in the schemas so that a missing one is answered `fillAllFields` by the
// handler; their types are checked here, so an object or a number array never reaches a query.
const Str = Type.Optional(Type.String());
const Credentials = Type.Object({ userid: Str, username: Str, password: Str, confirm: Str });
const NewUser = Type.Object({ userid: Str, username: Str, password: Str, group: Str });
const UserChanges = Type.Object({ userid: Str, username: Str, group: Str });
const Profile = Type.Object({ section: Str, oldPassword: Str, newPassword: Str, confirm: Str, notifiate: Type.Optional(Type.Union([Type.Boolean(), Type.String()])) });
const UserParam = Type.Object({ username: Type.String({ maxLength: 1024 }) });
const Errors = { '4xx': ErrorBody };

const STORE_ERROR_STATUS: Record<UserStoreErrorCode, number> = {
  userNotFound: 404, userAlreadyExists: 409, registrationClosed: 409, lastAdmin: 403, protectedAccount: 403,
};

function fail(statusCode: number, code: string): never {
  throw new ApiError(statusCode, code);
}

/** The first non-empty string among `values` (form posts send empty fields for blank inputs). */
function given(...values: Array<string | undefined>): string | undefined {
  return values.find((v) => v !== undefined && v !== '');
}

function address(raw: string): string {
  return normaliseAddress(raw) ?? fail(400, 'invalidAddress');
}

/** A new password with its confirmation, checked against the policy. */
function newPassword(password: string, confirm: string | undefined, username: string): string {
  if (confirm !== undefined && password !== confirm) fail(400, 'passwordDoesNotMatch');
  const problem = passwordProblem(password, username);
  if (problem) fail(400, problem);
  return password;
}

/** The user named in the path (the path may hold any text: anything else is unknown). */
function target(app: FastifyInstance, raw: string): User {
  const username = normaliseAddress(raw);
  return (username !== undefined ? app.userStore.get(username) : undefined) ?? fail(404, 'userNotFound');
}

function caller(request: FastifyRequest): User {
  return request.user ?? fail(401, 'authenticationRequired');
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('Cache-Control', 'no-store');
}

/**
 * Accounts under /api/admin: the registration of the first administrator, the user list and
 * its changes (administrators), passwords, and the caller's own profile. Bodies as JSON or form fields.
 */
export default async function adminUserRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  await app.register(formbody);
  app.setErrorHandler((error: FastifyError | UserStoreError, request, reply) =>
    apiErrorHandler(error instanceof UserStoreError ? new ApiError(STORE_ERROR_STATUS[error.code], error.code) : error, request, reply));

  app.post('/register', {
    onRequest: app.refuseCrossSite,
    schema: { body: Credentials, response: { 201: PublicUser, ...Errors } },
  }, async (request, reply) => {
    // Closed first: once an account exists, this public route costs no password hashing.
    if (app.userStore.count() > 0) fail(409, 'registrationClosed');
    const body = request.body ?? {};
    const rawName = given(body.userid, body.username);
    if (rawName === undefined || !given(body.password) || !given(body.confirm)) fail(400, 'fillAllFields');
    const username = address(rawName);
    const hash = await hashPassword(newPassword(body.password!, body.confirm, username));
    // The store re-checks inside a transaction: of concurrent registrations one wins, the others get 409.
    const user = app.userStore.createFirstAdmin(username, hash);
    request.log.info({ user: user.username }, 'first administrator registered');
    return reply.code(201).send(user);
  });

  app.get('/users', {
    onRequest: app.requireAdmin,
    schema: { response: { 200: Type.Array(PublicUser), ...Errors } },
  }, async (request, reply) => {
    reply.header('ezPAARSE-Logged-User', caller(request).username);
    return app.userStore.list();
  });

  const createUser = async (request: FastifyRequest<{ Body: Static<typeof NewUser> }>, reply: FastifyReply) => {
    const body = request.body ?? {};
    const rawName = given(body.userid, body.username);
    if (rawName === undefined || !given(body.password)) fail(400, 'fillAllFields');
    const username = address(rawName);
    const group = readGroup(body.group) ?? 'user';
    if (app.userStore.get(username)) fail(409, 'userAlreadyExists');
    const hash = await hashPassword(newPassword(body.password!, undefined, username));
    const user = app.userStore.create(username, hash, group);
    request.log.info({ user: user.username, group, by: caller(request).username }, 'user created');
    return reply.code(201).send(user);
  };
  const createOptions = { onRequest: app.requireAdmin, schema: { body: NewUser, response: { 201: PublicUser, ...Errors } } };
  app.post('/users', createOptions, createUser);
  app.post('/users/', createOptions, createUser);

  app.post('/users/:username', {
    onRequest: app.requireAdmin,
    schema: { params: UserParam, body: UserChanges, response: { 200: PublicUser, ...Errors } },
  }, async (request) => {
    const body = request.body ?? {};
    const user = target(app, request.params.username);
    const rawName = given(body.userid, body.username);
    const username = rawName === undefined ? undefined : address(rawName);
    const group = readGroup(body.group);
    if (username === undefined && group === undefined) fail(400, 'fillAllFields');
    const me = caller(request);
    if (group !== undefined && group !== user.group && user.id === me.id) fail(400, 'cannotChangeYourOwnGroup');
    // another administrator renaming the founder would take its login over
    if (username !== undefined && username !== user.username && user.founder && user.id !== me.id) fail(403, 'protectedAccount');
    const updated = app.userStore.update(user.username, { username, group });
    request.log.info({ user: updated.username, group: updated.group, by: me.username }, 'user updated');
    return updated;
  });

  app.delete('/users/:username', {
    onRequest: app.requireAdmin,
    schema: { params: UserParam, response: { 204: Type.Null(), ...Errors } },
  }, async (request, reply) => {
    const user = target(app, request.params.username);
    const me = caller(request);
    if (user.id === me.id) fail(403, 'cannotDeleteYourself');
    app.userStore.remove(user.username);
    request.log.info({ user: user.username, by: me.username }, 'user deleted');
    return reply.code(204).send(null);
  });

  // No mail server: the administrator gets the new password once, in this answer, and passes it on.
  app.post('/passwords/:username', {
    onRequest: app.requireAdmin,
    schema: {
      params: UserParam,
      response: { 200: Type.Object({ username: Type.String(), password: Type.String() }), ...Errors },
    },
  }, async (request, reply) => {
    const user = target(app, request.params.username);
    // a new password for the founder, handed to another administrator, would be its account
    if (user.founder && user.id !== caller(request).id) fail(403, 'protectedAccount');
    const password = generatePassword();
    app.userStore.setPasswordHash(user.username, await hashPassword(password));
    app.loginLimiter.clearAccount(user.username);
    request.log.info({ user: user.username, by: caller(request).username }, 'password reset');
    return noStore(reply).send({ username: user.username, password });
  });

  app.post('/profile', {
    onRequest: app.requireUser,
    schema: { body: Profile, response: { 204: Type.Null(), ...Errors } },
  }, async (request, reply) => {
    const body = request.body ?? {};
    const me = caller(request);
    if (body.section === 'notifications') {
      // as the reference reads it: a boolean, or a string where anything but "false" is true
      if (body.notifiate === undefined) fail(400, 'fillAllFields');
      const notifiate = typeof body.notifiate === 'boolean' ? body.notifiate : body.notifiate !== 'false';
      app.userStore.setNotifiate(me.username, notifiate);
      return reply.code(204).send(null);
    }
    if (body.section !== 'password') fail(400, 'badSection');
    if (!given(body.oldPassword) || !given(body.newPassword) || !given(body.confirm)) fail(400, 'fillAllFields');
    const password = newPassword(body.newPassword!, body.confirm, me.username);
    const hash = app.userStore.passwordHash(me.username);
    if (hash === undefined || !(await verifyPassword(hash, body.oldPassword!))) {
      // A wrong old password counts as a failed login (the same limit applies), of its own kind:
      // the login this request just made must not clear it.
      app.loginLimiter.recordFailure(request.ip, me.username, 'oldPassword');
      fail(400, 'wrongPassword');
    }
    app.loginLimiter.recordSuccess(request.ip, me.username, 'oldPassword');
    app.userStore.setPasswordHash(me.username, await hashPassword(password));
    request.log.info({ user: me.username }, 'password changed');
    return reply.code(204).send(null);
  });
}

function readGroup(raw: string | undefined): UserGroup | undefined {
  if (raw === undefined || raw === '') return undefined;
  return (USER_GROUPS as readonly string[]).includes(raw) ? (raw as UserGroup) : fail(400, 'invalidGroup');
}
