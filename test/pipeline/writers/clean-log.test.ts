import t from 'tap';
import { cleanLogFrame, createCleanLogSerializer } from '../../../src/pipeline/writers/clean-log.js';
import { body, failedBody } from './frame-helper.js';

t.test('the original lines, each followed by \\n', async (t) => {
  const s = createCleanLogSerializer();
  const line = '1.2.3.4 - - [15/Jan/2013:21:56:23 +0100] "GET http://www.sciencedirect.com:80/x HTTP/1.1" 200 444';
  t.equal(s.serialize({ _line: line, host: '1.2.3.4', status: '200' }), line);
  t.equal(s.serialize({ host: 'no line' }), '');
  const frame = cleanLogFrame();
  t.equal(frame.head, '');
  t.equal(frame.separator, '');
  t.equal(frame.terminator, '\n', 'each row ends with its newline at once');
  t.equal(frame.tail, '');
  t.equal(body('log', [], [{ _line: 'first' }, { _line: 'second;"x"' }]), 'first\nsecond;"x"\n');
  t.equal(body('log', [], []), '');
});

t.test('error marker', async (t) => {
  t.equal(failedBody('log', [], [{ _line: 'a' }], 4039, 'The client closed the connection'), 'a\n#logsift-error 4039 The client closed the connection\n');
});
