import { readSync } from 'node:fs';

/**
 * The search tree of a MaxMind DB read from its file as lookups need it, instead of held in
 * memory: it is four fifths of the slim City copy (26 of 32 MB). A lookup walks one node a bit
 * of the address; the nodes are read by pages, and a worker keeps the pages it read last (a lookup
 * reads a page from the system's file cache about once in ten, measured over 100,000 random
 * addresses), so an address costs a few microseconds, once: the locator caches its answer.
 */
export interface TreeLayout {
  /** a descriptor of the file, opened by the main thread; the workers read it with pread */
  readonly fd: number;
  readonly nodeCount: number;
  readonly recordSize: number;
  readonly ipVersion: number;
}

const PAGE_BYTES = 4096;
/** a node never straddles two pages: each page is read with the next node's room */
const PAGE_READ = PAGE_BYTES + 8;
const MAX_PAGES = 512;

export class PagedTree {
  /** the pages held, by page number (an array: a lookup reads one for each bit of the address) */
  private readonly pages: (Buffer | undefined)[];
  /** the numbers of the pages held, in the order they were read: a ring of MAX_PAGES */
  private readonly order = new Int32Array(MAX_PAGES);
  /** pages read so far */
  private held = 0;
  private readonly nodeBytes: number;
  private readonly ipv4Start: number;

  constructor(private readonly layout: TreeLayout) {
    if (![24, 28, 32].includes(layout.recordSize)) throw new Error(`unsupported record size ${layout.recordSize}`);
    this.nodeBytes = layout.recordSize / 4;
    this.pages = new Array<Buffer | undefined>(Math.ceil((layout.nodeCount * this.nodeBytes) / PAGE_BYTES)).fill(undefined);
    let node = 0;
    // IPv4 addresses in an IPv6 tree are the ::/96 network: 96 zero bits from the root
    if (layout.ipVersion === 6) for (let i = 0; i < 96 && node < layout.nodeCount; i++) node = this.record(node, 0);
    this.ipv4Start = node;
  }

  /**
   * The record an address (4 or 16 bytes) leads to: a data pointer (greater than the node
   * count, as in the file), or 0 when the database knows nothing of it.
   */
  find(address: ArrayLike<number>): number {
    const { nodeCount } = this.layout;
    const bits = address.length * 8;
    if (bits === 128 && this.layout.ipVersion === 4) return 0;
    let node = bits === 32 ? this.ipv4Start : 0;
    for (let depth = 0; depth < bits && node < nodeCount; depth++) {
      node = this.record(node, (address[depth >> 3] >> (7 - (depth & 7))) & 1);
    }
    return node > nodeCount ? node : 0;
  }

  private record(node: number, right: number): number {
    const at = node * this.nodeBytes;
    const page = this.page(Math.floor(at / PAGE_BYTES));
    const o = at % PAGE_BYTES;
    // the bytes read one by one: Buffer's readUIntBE is a generic call, 32 of them an IPv4 lookup
    switch (this.layout.recordSize) {
      case 24: {
        const b = o + right * 3;
        return (page[b] << 16) | (page[b + 1] << 8) | page[b + 2];
      }
      case 28:
        return right
          ? (page[o + 3] & 0x0f) * 0x1000000 + ((page[o + 4] << 16) | (page[o + 5] << 8) | page[o + 6])
          : (page[o + 3] >> 4) * 0x1000000 + ((page[o] << 16) | (page[o + 1] << 8) | page[o + 2]);
      default:
        return page.readUInt32BE(o + right * 4);
    }
  }

  private page(n: number): Buffer {
    let page = this.pages[n];
    if (page === undefined) {
      const slot = this.held % MAX_PAGES;
      if (this.held >= MAX_PAGES) {
        // The oldest page read goes (the top of the tree is read again at once when it was that
        // one), and its buffer takes the new page: a log of many hosts reads pages all the time,
        // and a buffer allocated for each read and dropped at its eviction left glibc's heaps
        // fragmented and growing.
        const oldest = this.order[slot];
        page = this.pages[oldest]!;
        this.pages[oldest] = undefined;
      } else {
        page = Buffer.alloc(PAGE_READ);
      }
      const read = readSync(this.layout.fd, page, 0, PAGE_READ, n * PAGE_BYTES);
      // past the file's end, as a new buffer would be: nothing of the page it held before
      if (read < PAGE_READ) page.fill(0, read);
      this.pages[n] = page;
      this.order[slot] = n;
      this.held++;
    }
    return page;
  }
}
