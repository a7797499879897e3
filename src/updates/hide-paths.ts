/** A folder of the service and the name an answer gives it instead of its path. */
export type PathLabel = readonly [path: string, label: string];

/**
 * `text` with each folder of `labels` written as its label (pure): the details of 5xx answers
 * name a part (`resources: the repository has no commit`), never where the service's files are.
 * Longer paths first, so that a folder inside another keeps its own label.
 */
export function hidePaths(text: string, labels: readonly PathLabel[]): string {
  const ordered = labels.filter(([path]) => path.length > 1).sort((a, b) => b[0].length - a[0].length);
  let out = text;
  for (const [path, label] of ordered) out = out.replaceAll(path.replace(/\/+$/, ''), label);
  return out;
}
