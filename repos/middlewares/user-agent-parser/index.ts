/**
 * user-agent-parser: the browser, system and kind of device of the event's user agent, read with
 * bowser. Needs a log format that captures the user agent (e.g. `%{user-agent}<[^"]+>`); the field
 * is found by name (user-agent, User-Agent, useragent, ua) or given with `User-Agent-Parser-Field`.
 */
import Bowser from 'bowser';
import type { MiddlewareFactory } from '../../../src/resources/middlewares.js';

export const fields = ['ua', 'ua_os', 'ua_device'];

export const headers = [
  { name: 'User-Agent-Parser-Field', description: 'the field holding the user agent, when its name is not user-agent, useragent or ua' },
];

/** Distinct agents in a log are few: each is parsed once (bounded). */
const CACHE_LIMIT = 2000;

type Parsed = { ua?: string; ua_os?: string; ua_device?: string };

const create: MiddlewareFactory = ({ headers, formatFields }) => {
  const field = headers['user-agent-parser-field']?.trim() || formatFields.find((f) => /^(?:user[-_]?agent|ua)$/i.test(f));
  const cache = new Map<string, Parsed>();
  return (ec) => {
    if (!field) return;
    const agent = ec[field];
    if (typeof agent !== 'string' || agent === '') return;
    let parsed = cache.get(agent);
    if (!parsed) {
      const r = Bowser.parse(agent);
      parsed = { ua: r.browser.name, ua_os: r.os.name, ua_device: r.platform.type };
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(agent, parsed);
    }
    if (parsed.ua) ec.ua = parsed.ua;
    if (parsed.ua_os) ec.ua_os = parsed.ua_os;
    if (parsed.ua_device) ec.ua_device = parsed.ua_device;
  };
};

export default create;
