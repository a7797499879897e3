import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fs, git, http } from '../../src/updates/git.js';

/** Files to write (text) or remove (null), by path inside the repository. */
export type FileChanges = Record<string, string | null>;

/**
 * A repository playing the origin: a work tree under the git server's root, changed with
 * isomorphic-git. Commits get explicit, increasing times so that "the latest tag" is certain.
 */
export class Upstream {
  readonly dir: string;
  readonly url: string;
  private time: number;

  constructor(root: string, serverUrl: string, readonly name: string, readonly branch = 'master', startTime = 1_700_000_000) {
    this.dir = join(root, name);
    this.url = `${serverUrl}/${name}/.git`;
    this.time = startTime;
  }

  async init(files: FileChanges): Promise<string> {
    await git.init({ fs, dir: this.dir, defaultBranch: this.branch });
    return this.commit(files, 'initial');
  }

  async commit(files: FileChanges, message: string): Promise<string> {
    await applyChanges(this.dir, files);
    for (const [path, text] of Object.entries(files)) {
      if (text === null) await git.remove({ fs, dir: this.dir, filepath: path });
      else await git.add({ fs, dir: this.dir, filepath: path });
    }
    this.time += 60;
    const author = { name: 'Upstream', email: 'upstream@example.org', timestamp: this.time, timezoneOffset: 0 };
    return git.commit({ fs, dir: this.dir, message, author, committer: author });
  }

  async tag(name: string, annotated = true): Promise<void> {
    if (annotated) {
      this.time += 1;
      await git.annotatedTag({ fs, dir: this.dir, ref: name, message: name, tagger: { name: 'Upstream', email: 'upstream@example.org', timestamp: this.time, timezoneOffset: 0 } });
    } else {
      await git.tag({ fs, dir: this.dir, ref: name });
    }
  }
}

export async function applyChanges(dir: string, files: FileChanges): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, path);
    if (text === null) await rm(file, { force: true });
    else {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
    }
  }
}

/** Clones `url` into `dir`, its metadata in `gitdir` (a data part's layout) or in `dir/.git`. */
export async function cloneInto(url: string, dir: string, gitdir = join(dir, '.git'), ref = 'master'): Promise<void> {
  await mkdir(dir, { recursive: true });
  await git.clone({ fs, http, dir, gitdir, url, ref });
}

/** A local commit in a clone (not on the origin). */
export async function commitLocally(dir: string, gitdir: string, files: FileChanges, message: string): Promise<string> {
  await applyChanges(dir, files);
  for (const [path, text] of Object.entries(files)) {
    if (text === null) await git.remove({ fs, dir, gitdir, filepath: path });
    else await git.add({ fs, dir, gitdir, filepath: path });
  }
  const author = { name: 'Local', email: 'local@example.org', timestamp: 1_800_000_000, timezoneOffset: 0 };
  return git.commit({ fs, dir, gitdir, message, author, committer: author });
}

/** A one-platform folder (see repos/platforms/README.md): `/article/<n>` on www.demo.org is `rtype`. */
export function demoPlatform(rtype: string, longname = 'Demo platform'): FileChanges {
  return {
    'demo/manifest.json': JSON.stringify({ name: 'demo', longname, domains: ['www.demo.org'] }),
    'demo/rules.yaml': [
      'format: 1',
      'rules:',
      '  - name: article',
      '    when:',
      "      path: '^/article/(?<id>[0-9]+)$'",
      '    set:',
      `      rtype: ${rtype}`,
      '      mime: HTML',
      "      unitid: '{id}'",
      '',
    ].join('\n'),
  };
}
