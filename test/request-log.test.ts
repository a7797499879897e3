import t from 'tap';
import { withoutSecrets } from '../src/request-log.js';

t.test('a ticket in a logged URL is hidden, the rest kept', async (t) => {
  t.equal(withoutSecrets('/j/job-traces.log?ticket=1795.Mw.abc&x=1'), '/j/job-traces.log?ticket=[hidden]&x=1');
  t.equal(withoutSecrets('/j/p?a=1&Ticket=abc#f'), '/j/p?a=1&Ticket=[hidden]#f');
  t.equal(withoutSecrets('/j/p?myticket=abc'), '/j/p?myticket=abc', 'another parameter');
  t.equal(withoutSecrets('/'), '/');
});
