import t from 'tap';
import { campusRanges, onCampusStage } from '../../../src/pipeline/stages/on-campus.js';
import type { EventFlags } from '../../../src/pipeline/stages/types.js';

t.test('private networks, configured ranges and labels', async (t) => {
  const stage = onCampusStage(campusRanges('115.0.0.0/8; Main campus=93.25.0.0/16,83.112.9.15'));
  const run = (host?: string) => {
    const ec: Record<string, string | undefined> = { host };
    const flags: EventFlags = { denied: false, pkbMiss: false };
    stage.run(ec, flags);
    return [ec.on_campus, flags.campus];
  };
  t.same(run('192.168.1.1'), ['Y', true]);
  t.same(run('172.20.0.1'), ['Y', true]);
  t.same(run('115.2.3.4'), ['Y', true]);
  t.same(run('93.25.1.1'), ['Main campus', true]);
  t.same(run('83.112.9.15'), ['Main campus', true]);
  t.same(run('66.65.65.107'), ['N', false]);
  t.same(run('10.0.0.1, 66.65.65.107'), ['Y', true], 'the client of a chain');
  t.same(run(undefined), [undefined, undefined], 'no host: left alone');
  t.throws(() => campusRanges('not-a-range'));
});
