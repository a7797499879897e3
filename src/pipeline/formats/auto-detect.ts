/** Formats tried when no `Log-Format-*` header is given (reference 2.6), in this order. */
import { BIBLIOPAM_STANDARD_FORMAT } from './bibliopam.js';
import { compileFormat } from './compile.js';
import type { CompiledFormat, ProxyFamily } from './types.js';

export const AUTO_FORMATS: readonly { family: ProxyFamily; literal: string }[] = Object.freeze([
  { family: 'ezproxy', literal: '%h %l %u %t "%r" %s %b' },
  { family: 'apache', literal: '%h %l %u %t "%r" %>s %b' },
  { family: 'apache', literal: '%h %l %u %t "%r" %>s %b "%{referer}<[^ "]+>" "%{user-agent}<[^"]+>"' },
  // Bibliopam: reported as apache, as the reference does
  { family: 'apache', literal: BIBLIOPAM_STANDARD_FORMAT },
  { family: 'squid', literal: '%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt' },
  { family: 'squid', literal: '%>a %[ui %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st %Ss:%Sh' },
]);

let compiled: readonly CompiledFormat[] | undefined;

/** The auto formats, compiled once per process. */
export function autoFormats(): readonly CompiledFormat[] {
  compiled ??= Object.freeze(AUTO_FORMATS.map((f) => compileFormat(f.family, f.literal)));
  return compiled;
}

/** The first auto format that matches the line, or undefined. */
export function detectFormat(line: string): CompiledFormat | undefined {
  for (const format of autoFormats()) {
    if (format.regex.test(line)) return format;
  }
  return undefined;
}
