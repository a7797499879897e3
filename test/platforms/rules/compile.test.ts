import t from 'tap';
import { compileRules, helpers } from '../../../src/platforms/rules/compile.js';
import { RuleError } from '../../../src/platforms/rules/transforms.js';
import { urlView } from '../../../src/platforms/url-view.js';
import type { RulesFileSpec, HooksModule } from '../../../src/platforms/rules/types.js';

function matcher(file: RulesFileSpec, hooks: HooksModule = {}) {
  const { match } = compileRules(file, hooks);
  return (url: string, ec: Record<string, string> = {}) => match({ url, ...ec }, urlView(url));
}

t.test('first match wins; captures feed templates; nothing set means no match', async (t) => {
  const m = matcher({
    rules: [
      { when: { path: '^/doi/(?<doi>10\\.[0-9]+/(?<id>[^/]+))$' }, set: { rtype: 'ARTICLE', mime: 'HTML', doi: '{doi}', unitid: '{id}' } },
      { when: { path: '^/doi/' }, set: { rtype: 'OTHER' } },
    ],
  });
  t.same(m('http://x.org/doi/10.1000/abc'), { rtype: 'ARTICLE', mime: 'HTML', doi: '10.1000/abc', unitid: 'abc' });
  t.same(m('http://x.org/doi/10.1000/abc/pdf'), { rtype: 'OTHER' });
  t.equal(m('http://x.org/home'), undefined);
  t.equal(m('http://x.org/%zz'), undefined, 'an undecodable URL recognises nothing');
});

t.test('query, field, var conditions, comparisons, any/not, flags', async (t) => {
  const m = matcher({
    rules: [
      { when: { query: { id: '^(?<id>[0-9]+)$', format: { re: '^pdf$', flags: 'i' } } }, set: { unitid: '{id}', mime: 'PDF' } },
      { when: { query: { id: true, preview: false }, field: { size: { gte: 10000 } } }, set: { unitid: '{query.id}', rtype: 'ARTICLE' } },
      { when: { any: [{ path: '^/a/(?<x>[a-z]+)' }, { path: '^/b/(?<x>[0-9]+)' }], not: { query: { skip: true } } }, set: { unitid: '{x}' } },
      { when: { field: { status: { in: ['200', '304'] } }, var: { host: '^www\\.' } }, set: { rtype: 'TOC' } },
    ],
  });
  t.same(m('http://x.org/v?id=12&format=PDF'), { unitid: '12', mime: 'PDF' });
  t.same(m('http://x.org/v?id=a1', { size: '12000' }), { unitid: 'a1', rtype: 'ARTICLE' });
  t.equal(m('http://x.org/v?id=a1', { size: '800' }), undefined);
  t.equal(m('http://x.org/v?id=a1&preview=1', { size: '12000' }), undefined);
  t.same(m('http://x.org/b/42'), { unitid: '42' });
  t.equal(m('http://x.org/b/42?skip=1'), undefined);
  t.same(m('http://www.x.org/', { status: '304' }), { rtype: 'TOC' });
  t.equal(m('http://cdn.x.org/', { status: '304' }), undefined);
});

t.test('nested rules refine; continue gives defaults then overrides; ignore stops', async (t) => {
  const m = matcher({
    rules: [
      { when: { path: '\\.(?:css|js)$' }, ignore: true },
      {
        when: { path: '^/book/(?<isbn>97[89][0-9]{10})(?:/(?<ch>[0-9]+))?' },
        set: { title_id: '{isbn}', unitid: '{isbn}', rtype: 'BOOK' },
        continue: true,
        rules: [{ when: { var: { ch: true } }, set: { unitid: '{isbn}_{ch}', rtype: 'BOOK_SECTION' } }],
      },
      { when: { var: { 'result.rtype': '^BOOK' } }, set: { mime: { from: '{query.format|lower}', map: { pdf: PDF, epub: EPUB }, default: 'HTML' } } },
    ],
  });
  t.same(m('http://x.org/book/9782738111562'), { title_id: '9782738111562', unitid: '9782738111562', rtype: 'BOOK', mime: 'HTML' });
  t.same(m('http://x.org/book/9782738111562/3?format=PDF'), { title_id: '9782738111562', unitid: '9782738111562_3', rtype: 'BOOK_SECTION', mime: 'PDF' });
  t.equal(m('http://x.org/book/9782738111562/app.js'), undefined);
});
const PDF = 'PDF';
const EPUB = 'EPUB';

t.test('regex maps, unset, let', async (t) => {
  const m = matcher({
    rules: [{
      when: { path: '^/(?<file>[^/]+)$' },
      let: { ext: '{file|match:"\\.([a-z0-9]+)$"}' },
      set: { unitid: '{file}', mime: { from: '{ext}', map: { '^pdf$': 'PDF', '^(?:htm|html)$': 'HTML' }, regex: true, default: 'MISC' }, tmp: 'x' },
      unset: ['tmp'],
    }],
  });
  t.same(m('http://x.org/a.pdf'), { unitid: 'a.pdf', mime: 'PDF' });
  t.same(m('http://x.org/a.htm'), { unitid: 'a.htm', mime: 'HTML' });
  t.same(m('http://x.org/a.zip'), { unitid: 'a.zip', mime: 'MISC' });
});

t.test('hooks: a rule hook adds fields or declines; a platform hook replaces the rules', async (t) => {
  const hooks: HooksModule = {
    hooks: {
      pages: ({ vars }) => {
        const first = Number(vars('first'));
        const count = Number(vars('query.count'));
        return Number.isFinite(first + count) ? { last_page: String(first + count - 1) } : null;
      },
    },
    parse: ({ view }) => (view?.pathname === '/x' ? { rtype: 'SEARCH' } : null),
  };
  const m = matcher({ rules: [{ when: { path: '^/p/(?<first>[0-9]+)' }, set: { first_page: '{first}' }, hook: 'pages' }] }, hooks);
  t.same(m('http://x.org/p/10?count=5'), { first_page: '10', last_page: '14' });
  t.equal(m('http://x.org/p/10'), undefined, 'the hook declined: the rule does not match');
  const whole = compileRules(undefined, hooks);
  t.same(whole.match({ url: 'http://x.org/x' }, urlView('http://x.org/x')), { rtype: 'SEARCH' });
});

t.test('hook helpers: urlView, parseQuery, base64, issn, isbn, decode', async (t) => {
  // a link resolver: the consulted URL travels (encoded twice) in `target`, a base64 JSON context
  // in `ctx`, the book and page in the fragment
  const hooks: HooksModule = {
    parse: ({ view, helpers: h }) => {
      if (view?.pathname !== '/go') return null;
      const target = h.urlView(String(view.query.target ?? ''));
      const fragment = h.parseQuery(view.hash);
      const ctx = JSON.parse(h.base64(String(view.query.ctx ?? '')) || '{}') as Record<string, string>;
      return {
        title_id: target?.hostname,
        print_identifier: h.issn(target?.pathname.split('/')[2] ?? ''),
        unitid: [target?.query.doc ?? []].flat().join('+') || undefined,
        online_identifier: h.isbn(String(fragment.isbn ?? '')),
        first_page: String(fragment.page ?? '') || undefined,
        db_id: ctx.id,
        publication_title: h.decode(ctx.title ?? ''),
      };
    },
  };
  const { match } = compileRules(undefined, hooks);
  const run = (url: string) => match({ url }, urlView(url));
  const ctx = Buffer.from(JSON.stringify({ id: '42', title: 'Caf%C3%A9 cr%C3%A8me' })).toString('base64');
  const target = encodeURIComponent(encodeURIComponent('https://pub.org/j/1234567x/a?doc=a1&doc=a2'));
  t.same(run(`http://resolver.org/go?target=${target}&ctx=${ctx}#isbn=978-2-7381-1156-2&page=3`), {
    title_id: 'pub.org',
    print_identifier: '1234-567X',
    unitid: 'a1+a2',
    online_identifier: '9782738111562',
    first_page: '3',
    db_id: '42',
    publication_title: 'Café crème',
  }, 'each helper feeds one field');
  const badCtx = Buffer.from(JSON.stringify({ title: 'Caf%E9%zz' })).toString('base64');
  t.same(run(`http://resolver.org/go?target=${encodeURIComponent(encodeURIComponent('https://pub.org/j/123'))}&ctx=${badCtx}#isbn=12345`), {
    title_id: 'pub.org',
  }, 'a short ISSN or ISBN and an undecodable title give no field');
  t.equal(run('http://resolver.org/home'), undefined, 'the hook declined');

  // the same helpers, directly
  t.same(helpers.parseQuery('?a=1&a=2&b=x%20y'), { a: ['1', '2'], b: 'x y' }, 'leading ? dropped, repeated keys, decoded');
  t.same(helpers.parseQuery('c=%zz'), { c: '%zz' }, 'a malformed escape stays as it is');
  t.equal(helpers.base64('aGVsbG8='), 'hello');
  t.equal(helpers.base64('PDw_Pz4-'), '<<??>>', 'the URL-safe alphabet');
  t.equal(helpers.issn('0028 0836'), '0028-0836');
  t.equal(helpers.issn('0028-083'), undefined);
  t.equal(helpers.isbn('2-7381-1156-x'), '273811156X');
  t.equal(helpers.isbn('978-2-7381'), undefined);
  t.equal(helpers.decode('a%2Fb'), 'a/b');
  t.equal(helpers.decode('plain'), 'plain');
  t.equal(helpers.decode('%E9'), undefined, 'not UTF-8');
  t.equal(helpers.urlView('http://x.org/%zz'), undefined);
  t.equal(helpers.urlView('https://X.org:8080/p?q=1#h')?.hostname, 'x.org');
});

t.test('errors say where', async (t) => {
  t.throws(() => compileRules({ rules: [{ when: { path: '(' }, set: { a: 'b' } }] }, {}), /rules\[0\]\.when\.path: invalid regular expression/);
  t.throws(() => compileRules({ rules: [{ name: 'x', set: { a: '{b|nope}' } }] }, {}), /rules\[0\] \(x\)\.set\.a/);
  t.throws(() => compileRules({ rules: [{ when: { nope: 'a' } as never, set: { a: 'b' } }] }, {}), /unknown condition/);
  t.throws(() => compileRules({ rules: [{ name: 'empty' }] }, {}), /does nothing/);
  t.throws(() => compileRules({ rules: [{ hook: 'missing' }] }, {}), RuleError);
  t.throws(() => compileRules({ rules: [], extra: 1 } as never, {}), /unknown top-level key/);
  t.equal(compileRules({ rules: [{ set: { a: 'b' } }, { rules: [{ set: { c: 'd' } }] }] }, {}).ruleCount, 3);
});

t.test('url, path, host, search, hash, protocol: true means present and not empty, false absent or empty', async (t) => {
  const m = matcher({
    rules: [
      { when: { path: '^/pdf/', search: true }, set: { rtype: 'ARTICLE', mime: 'PDF', from: 'search' } },
      { when: { path: '^/pdf/', search: false, hash: true }, set: { rtype: 'ARTICLE', mime: 'PDF', from: 'hash' } },
      { when: { path: '^/pdf/', search: false }, set: { rtype: 'ARTICLE', mime: 'PDF' } },
    ],
  });
  t.equal(m('http://x.org/pdf/1?a=1')?.from, 'search');
  t.same(m('http://x.org/pdf/1?'), { rtype: 'ARTICLE', mime: 'PDF' }, 'a bare ? is an empty search');
  t.equal(m('http://x.org/pdf/1#p=3')?.from, 'hash');
  t.same(m('http://x.org/pdf/1'), { rtype: 'ARTICLE', mime: 'PDF' });
  t.throws(() => compileRules({ rules: [{ when: { search: 'a(' }, set: { x: '1' } }] }, {}), RuleError, 'patterns still checked');
});

t.test('queryi: query parameters named in any case, in conditions and templates', async (t) => {
  const m = matcher({
    rules: [
      { when: { path: '^/book\\.aspx$', queryi: { bookid: '^(?<book>[0-9]+)$' } }, set: { unitid: '{book}', title_id: '{queryi.sectionid}' } },
      { when: { queryi: { DOCID: true } }, set: { unitid: '{queryi.docid}' } },
    ],
  });
  t.same(m('http://x.org/book.aspx?bookID=12&SectionId=5'), { unitid: '12', title_id: '5' });
  t.same(m('http://x.org/book.aspx?BOOKID=13'), { unitid: '13' });
  t.same(m('http://x.org/book.aspx?bookid=14'), { unitid: '14' }, 'the exact lower-case key too');
  t.same(m('http://x.org/other?DocId=a'), { unitid: 'a' }, 'the name in the rule may have any case too');
  t.equal(m('http://x.org/other?doc=a'), undefined);
  const exact = matcher({ rules: [{ when: { query: { bookid: true } }, set: { x: '1' } }] });
  t.equal(exact('http://x.org/?bookID=1'), undefined, 'query stays case-sensitive');
});

t.test('captures of rules tested before a scope exists: from several conditions, escaped group names', async (t) => {
  const m = matcher({
    rules: [
      { when: { path: '^/a/(?<\\u0069d>[0-9]+)$' }, set: { unitid: '{id}' } },
      { when: { path: '^/b/(?<id>[0-9]+)$', query: { v: '^(?<view>pdf|html)$' } }, set: { unitid: '{id}', mime: '{view|upper}' } },
      { when: { path: '^/c/(?<id>[0-9]+)$', query: { v: '^(?<view>pdf)$' }, field: { status: { eq: 200 } } }, set: { unitid: '{id}.{view}' } },
    ],
  });
  t.same(m('http://x.org/a/12'), { unitid: '12' });
  t.same(m('http://x.org/b/12?v=pdf'), { unitid: '12', mime: 'PDF' });
  t.equal(m('http://x.org/b/12?v=epub'), undefined);
  t.same(m('http://x.org/c/7?v=pdf', { status: '200' }), { unitid: '7.pdf' });
  t.equal(m('http://x.org/c/7?v=pdf', { status: '404' }), undefined);
});

t.test('a rule of three or more scope-free conditions matches only when all hold', async (t) => {
  const m = matcher({
    rules: [
      { when: { host: '^d\\.', path: '^/d$', query: { v: 'pdf' } }, set: { rtype: 'ARTICLE' } },
      { when: { host: '^e\\.', path: '^/e/(?<id>[0-9]+)$', query: { v: '^(?<view>pdf)$' }, field: { status: { eq: 200 } } }, set: { unitid: '{id}', mime: '{view|upper}' } },
    ],
  });
  t.same(m('http://d.org/d?v=pdf'), { rtype: 'ARTICLE' });
  t.equal(m('http://d.org/d?v=html'), undefined);
  t.equal(m('http://x.org/d?v=pdf'), undefined);
  t.same(m('http://e.org/e/5?v=pdf', { status: '200' }), { unitid: '5', mime: 'PDF' });
  t.equal(m('http://e.org/e/5?v=pdf', { status: '404' }), undefined);
  t.equal(m('http://x.org/e/5?v=pdf', { status: '200' }), undefined);
});

t.test('variables: a rule reads its own first, then its parents\'; what a rule that failed captured is gone', async (t) => {
  const m = matcher({
    rules: [{
      when: { path: '^/(?<a>[a-z]+)/(?<b>[a-z]+)(?:/(?<c>[0-9]+))?$' },
      let: { a: '{a|upper}', d: '{a}-{b}' },
      set: { outer: '{a}' },
      rules: [
        // captures c, then fails on its second condition: c stays unset for the next rule
        { when: { path: '/(?<c>[a-z]+)$', query: { never: true } }, set: { wrong: '{c}' } },
        // an optional group that took no part leaves the parent's value visible
        { when: { path: '^/[a-z]+(?:/(?<b>[0-9]+))?' }, set: { b: '{b}', c: '{c?}', d: '{d}' }, continue: true },
        // the first branch that holds gives its captures; the others' are dropped
        { when: { any: [{ query: { x: '^(?<e>[0-9]+)$', y: true } }, { query: { x: '^(?<e>.+)$' } }], not: { query: { z: '^(?<b>.+)$' } } }, set: { e: '{e}', nb: '{b}' } },
      ],
    }],
  });
  t.same(m('http://x.org/ab/cd'), { outer: 'AB', b: 'cd', d: 'AB-cd' }, 'the let sees the capture of its own name, then replaces it');
  t.same(m('http://x.org/ab/cd/7?x=12'), { outer: 'AB', b: 'cd', c: '7', d: 'AB-cd', e: '12', nb: 'cd' });
  t.same(m('http://x.org/ab/cd?x=12&y=1'), { outer: 'AB', b: 'cd', d: 'AB-cd', e: '12', nb: 'cd' });
  t.same(m('http://x.org/ab/cd?x=12&z=q'), { outer: 'AB', b: 'cd', d: 'AB-cd' }, 'not: its own capture of b is dropped with it');
});

t.test('the texts of a rules file reach the generated code as data, never as code', async (t) => {
  const odd = 'a"b\'c`d${e}\\f\ng\u2028h*/i</script>';
  const g = globalThis as { pwned?: number };
  const m = matcher({
    rules: [{
      name: odd,
      when: { path: '^/(?<x>[^/]+)/q', query: { [odd]: true, 'x"); globalThis.pwned = 1; ("': false } },
      let: { [odd]: `{x}"); globalThis.pwned = 2; ("` },
      set: {
        [odd]: `{${odd.replace(/[^a-z]/g, '')}?}${odd.replace(/[{}]/g, '')}`,
        'k"]; globalThis.pwned = 3; //': { from: '{x}', map: { [odd]: 'odd', 'v%22': 'quote"' }, default: '{x}' },
        lit: '"); globalThis.pwned = 4; ("',
      },
      unset: ['u"]; globalThis.pwned = 5; //'],
    }],
  });
  // the view's path escapes the quote again (%22): the legacy parser's view
  const url = `http://x.org/v%22/q?${encodeURIComponent(odd)}=1`;
  t.same(m(url), {
    [odd]: odd.replace(/[{}]/g, ''),
    'k"]; globalThis.pwned = 3; //': 'quote"',
    lit: '"); globalThis.pwned = 4; ("',
  });
  t.equal(g.pwned, undefined, 'nothing of the file ran');
  t.throws(() => compileRules({ rules: [{ when: { path: '^/(?<x>a)' }, set: { a: '{x|nope"); globalThis.pwned = 6; ("}' } }] }, {}), RuleError);
  t.equal(g.pwned, undefined);
});
