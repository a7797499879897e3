import t from 'tap';
import { DEFAULT_MIDDLEWARES, isBuiltinMiddleware, resolveMiddlewares } from '../../src/pipeline/middlewares.js';
import { StatusError } from '../../src/status-codes.js';

const known = (n: string) => isBuiltinMiddleware(n) || n === 'user-agent-parser';
const resolve = (header: string | undefined) => resolveMiddlewares(header, DEFAULT_MIDDLEWARES, known);

t.test('the reference examples (middlewares-test)', async (t) => {
  t.same(resolve('(only) anonymizer, parser'), ['anonymizer', 'parser']);
  t.same(resolve('(only) anonymizer, parser | (before anonymizer) filter | (after parser) deduplicator'), ['filter', 'anonymizer', 'parser', 'deduplicator']);
});

t.test('placement', async (t) => {
  t.same(resolve(undefined), [...DEFAULT_MIDDLEWARES]);
  t.same(resolve('user-agent-parser').slice(-3), ['user-agent-parser', 'qualifier', 'anonymizer'], 'before qualifier by default');
  t.same(resolve('(after parser) user-agent-parser').slice(0, 3), ['filter', 'parser', 'user-agent-parser']);
  t.same(resolve('(before filter) user-agent-parser')[0], 'user-agent-parser');
  t.same(resolve('(only) parser, anonymizer | user-agent-parser'), ['parser', 'user-agent-parser', 'anonymizer'], 'no qualifier: before the last');
  t.same(resolve('(before istex) user-agent-parser').slice(-3), ['user-agent-parser', 'qualifier', 'anonymizer'], 'an anchor not in the chain: like a plain part');
  t.same(resolve('(after qualifier) parser').slice(-3), ['qualifier', 'parser', 'anonymizer'], 'a name in the chain is moved');
  t.same(resolve('(ONLY) Parser'), ['parser'], 'case-insensitive');
});

t.test('errors', async (t) => {
  const code = (h: string) => {
    try {
      resolve(h);
      return 0;
    } catch (err) {
      return (err as StatusError).code;
    }
  };
  t.equal(code('pars er'), 4024);
  t.equal(code('parser; filter'), 4024);
  t.equal(code('crossref'), 4025);
  t.equal(code('(before parser) nothing-here'), 4025);
});
