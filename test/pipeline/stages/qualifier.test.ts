import t from 'tap';
import { qualifierStage, RESOURCE_IDENTIFIERS } from '../../../src/pipeline/stages/qualifier.js';
import { isRejectCategory, type EventFlags } from '../../../src/pipeline/stages/types.js';
import type { AccessEvent } from '../../../src/pipeline/event.js';

function verdict(ec: AccessEvent, level?: number) {
  const flags: EventFlags = { denied: false, pkbMiss: false };
  return qualifierStage(level).run({ ...ec }, flags);
}

t.test('weights: rtype and mime 0.5 each, an identifier 1, the level 1 (reference 3.6)', async (t) => {
  t.equal(verdict({ rtype: 'ARTICLE' }), 'unqualified-ecs', 'rtype alone: half the level');
  t.equal(verdict({ mime: 'PDF' }), 'unqualified-ecs', 'mime alone');
  t.equal(verdict({ rtype: 'ARTICLE', mime: 'PDF' }), undefined, 'rtype and mime reach it together');
  t.equal(verdict({}), 'unqualified-ecs');
  for (const id of RESOURCE_IDENTIFIERS) t.equal(verdict({ [id]: 'x1' }), undefined, `${id} alone qualifies`);
  t.equal(verdict({ rtype: 'ARTICLE', doi: '10.1/a' }), undefined);
});

t.test('empty fields and other fields weigh nothing', async (t) => {
  t.equal(verdict({ rtype: 'ARTICLE', mime: '' }), 'unqualified-ecs', 'an empty mime is not a mime');
  t.equal(verdict({ title_id: '', doi: undefined, rtype: 'TOC' }), 'unqualified-ecs');
  t.equal(verdict({
    rtype: 'ARTICLE', publication_title: 'A journal', vol: '3', issue: '2', first_page: '10',
    publisher_name: 'P', url: 'http://x.org/a', domain: 'x.org', platform: 'x',
  }), 'unqualified-ecs', 'titles, volumes, pages, platform: none is an identifier');
});

t.test('another level: the weights add up to it', async (t) => {
  t.equal(verdict({ doi: '10.1/a' }, 2), 'unqualified-ecs');
  t.equal(verdict({ doi: '10.1/a', rtype: 'ARTICLE' }, 2), 'unqualified-ecs', '1.5 < 2');
  t.equal(verdict({ doi: '10.1/a', rtype: 'ARTICLE', mime: 'PDF' }, 2), undefined);
  t.equal(verdict({ doi: '10.1/a', unitid: 'a' }, 2), undefined, 'two identifiers');
  t.equal(verdict({ rtype: 'ARTICLE' }, 0.5), undefined);
});

t.test('the reject is a known category and leaves the event and flags alone', async (t) => {
  const ec: AccessEvent = { rtype: 'ARTICLE', url: 'http://x.org/a' };
  const flags: EventFlags = { denied: false, pkbMiss: false };
  const stage = qualifierStage();
  t.equal(stage.name, 'qualifier');
  const v = stage.run(ec, flags);
  t.ok(v !== undefined && isRejectCategory(v), 'unqualified-ecs is one of the reject files');
  t.same(ec, { rtype: 'ARTICLE', url: 'http://x.org/a' });
  t.same(flags, { denied: false, pkbMiss: false });
});
