/**
 * The conversion worker (workers/convert) on real files made here: real LibreOffice, mupdf, sharp,
 * ffprobe and ffmpeg. Files are generated once (beforeAll) and shared; LibreOffice is slow to start.
 */
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConvertError } from '#core/courseware/converter.ts';
import type { ConvertedPage, ConvertFailure } from '#core/courseware/converter.ts';
import { PAGE_IMAGE_WIDTH, PAGE_THUMB_WIDTH } from '#core/contracts/courseware.ts';
import { createConverter } from '../../workers/convert/index.ts';
import type { LocalConverter } from '../../workers/convert/index.ts';
import { isAlive, removeStaleProfiles } from '../../workers/convert/office.ts';
import {
  ENCRYPTED_PDF_FILTER,
  GLYPH_CELL,
  GLYPH_CELLS,
  SLIDE_CM,
  imageBombPdf,
  presentationFodp,
  simplePdf,
  sofficeConvert,
  testMp4,
  textFodt,
  writeFixture,
  zipBombPptx,
  zipOf,
} from '#tests/fixtures/courseware.ts';

let dir = '';
let converter: LocalConverter;
const files: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-convert-test-'));
  converter = createConverter({ workDir: path.join(dir, 'work') });
  const fodp = await writeFixture(dir, 'deck.fodp', presentationFodp(3));
  const fodt = await writeFixture(dir, 'notes.fodt', textFodt(2));
  // Two LibreOffice profiles so the three exports run two at a time.
  const [pptx, docx, encrypted] = await Promise.all([
    sofficeConvert(fodp, 'pptx', dir, 'deck.pptx', path.join(dir, 'profile-a')),
    sofficeConvert(fodt, 'docx', dir, 'notes.docx', path.join(dir, 'profile-b')).then(async (docxFile) => ({
      docxFile,
      enc: await sofficeConvert(fodt, ENCRYPTED_PDF_FILTER, dir, 'secret.pdf', path.join(dir, 'profile-b')),
    })),
    converter.ready,
  ]).then(([p, d]) => [p, d.docxFile, d.enc] as const);
  files.pptx = pptx;
  files.docx = docx;
  files.encrypted = encrypted;
  files.pdf = await writeFixture(dir, 'three.pdf', simplePdf(3));
  files.tall = await writeFixture(dir, 'tall.pdf', simplePdf(1, '0 0 100 1000000'));
  files.many = await writeFixture(dir, 'many.pdf', simplePdf(201));
  files.bomb = await writeFixture(dir, 'bomb.pdf', imageBombPdf(30_000, 30_000));
  files.corruptPdf = await writeFixture(
    dir,
    'corrupt.pdf',
    Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog'), Buffer.alloc(3000, 0x41)]),
  );
  files.textAsPptx = await writeFixture(dir, 'notes.pptx', '这不是演示文稿，只是文字。\n');
  files.mp4 = await testMp4(path.join(dir, 'clip.mp4'), 3);
  files.mpeg4 = await testMp4(path.join(dir, 'old.mp4'), 2, 'mpeg4');
}, 180_000);

afterAll(async () => {
  await converter?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function convert(file: string, kind: Parameters<LocalConverter['convertDocument']>[1], options = {}) {
  const pages: ConvertedPage[] = [];
  const totals: number[] = [];
  const result = await converter.convertDocument(
    file,
    kind,
    async (page, total) => {
      pages.push(page);
      totals.push(total);
    },
    options,
  );
  return { result, pages, totals };
}

async function failure(p: Promise<unknown>): Promise<{ reason: ConvertFailure; retryable: boolean; message: string }> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ConvertError);
  const c = e as ConvertError;
  return { reason: c.reason, retryable: c.retryable, message: c.message };
}

/** Every page a valid JPEG of the stated size, PAGE_IMAGE_WIDTH wide, its thumbnail PAGE_THUMB_WIDTH wide, in order. */
async function expectPages(pages: ConvertedPage[], count: number, aspect: number) {
  expect(pages.map((p) => p.page)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  for (const p of pages) {
    const image = await sharp(p.image).metadata();
    const thumb = await sharp(p.thumb).metadata();
    expect(image.format).toBe('jpeg');
    expect(thumb.format).toBe('jpeg');
    expect([image.width, image.height]).toEqual([PAGE_IMAGE_WIDTH, p.height]);
    expect(p.width).toBe(PAGE_IMAGE_WIDTH);
    expect(Math.abs(p.height - PAGE_IMAGE_WIDTH / aspect)).toBeLessThanOrEqual(1);
    expect(thumb.width).toBe(PAGE_THUMB_WIDTH);
    expect(Math.abs(thumb.height - PAGE_THUMB_WIDTH / aspect)).toBeLessThanOrEqual(1);
    // The page was decoded, not left blank: something other than white on it.
    const { data } = await sharp(p.image).greyscale().raw().toBuffer({ resolveWithObject: true });
    expect(data.some((v) => v < 128)).toBe(true);
  }
}

/**
 * Slide 1 holds one large CJK character in each of four cells (一 田 永 書). Real glyphs differ
 * from each other (一 is one stroke, 書 a dense block); missing-glyph boxes would all be the same
 * hollow box, and no font at all would leave the cells blank. Returns what looks wrong ([] = glyphs).
 */
async function glyphProblems(jpeg: Uint8Array): Promise<string[]> {
  const { data, info } = await sharp(jpeg).greyscale().raw().toBuffer({ resolveWithObject: true });
  const px = info.width / SLIDE_CM.width;
  const side = Math.floor(GLYPH_CELL.size * px);
  const cells = GLYPH_CELLS.map((c) => {
    const x0 = Math.round(c.x * px);
    const y0 = Math.round(GLYPH_CELL.y * px);
    const ink = new Uint8Array(side * side);
    const rows = new Set<number>();
    let count = 0;
    for (let y = 0; y < side; y++)
      for (let x = 0; x < side; x++) {
        const dark = data[(y0 + y) * info.width + x0 + x]! < 128 ? 1 : 0;
        ink[y * side + x] = dark;
        count += dark;
        if (dark) rows.add(y);
      }
    return { char: c.char, ink, count, rows: rows.size };
  });
  const problems: string[] = [];
  const [one, field, , book] = cells;
  for (const c of cells) if (c.count < 200) problems.push(`${c.char}: only ${String(c.count)} dark pixels`);
  if (book!.count < 2.5 * one!.count) problems.push(`書 (${String(book!.count)}) is not much darker than 一 (${String(one!.count)})`);
  if (field!.count < 1.5 * one!.count) problems.push(`田 (${String(field!.count)}) is not darker than 一 (${String(one!.count)})`);
  // 一 is a horizontal stroke: its ink sits in a band a fraction of the cell tall.
  if (one!.rows >= side / 4) problems.push(`一 spans ${String(one!.rows)} of ${String(side)} rows`);
  // Pairwise, at least a fifth of the inked pixels differ (identical boxes would differ by ~0).
  for (let i = 0; i < cells.length; i++)
    for (let j = i + 1; j < cells.length; j++) {
      const a = cells[i]!;
      const b = cells[j]!;
      let differ = 0;
      for (let k = 0; k < a.ink.length; k++) differ += a.ink[k]! ^ b.ink[k]!;
      if (differ < 0.2 * Math.max(a.count, b.count)) problems.push(`${a.char} and ${b.char} look alike (${String(differ)} pixels differ)`);
    }
  return problems;
}

describe('sniff', () => {
  it('tells the kinds apart by content, whatever the name says', async () => {
    expect(await converter.sniff(files.pptx!)).toBe('pptx');
    expect(await converter.sniff(files.docx!)).toBe('docx');
    expect(await converter.sniff(files.pdf!)).toBe('pdf');
    expect(await converter.sniff(files.encrypted!)).toBe('pdf');
    expect(await converter.sniff(files.mp4!)).toBe('mp4');
    // A text file named .pptx, an empty file, a zip that is not Office, a picture: refused.
    expect(await converter.sniff(files.textAsPptx!)).toBeNull();
    expect(await converter.sniff(await writeFixture(dir, 'empty.pdf', ''))).toBeNull();
    expect(
      await converter.sniff(await writeFixture(dir, 'other.pptx', zipOf([{ name: 'readme.txt', data: Buffer.from('hi') }]))),
    ).toBeNull();
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    expect(await converter.sniff(await writeFixture(dir, 'pic.pdf', png))).toBeNull();
    // A pptx renamed .docx is still a pptx; a truncated zip (no central directory) is refused.
    const pptxBytes = await readFile(files.pptx!);
    expect(await converter.sniff(await writeFixture(dir, 'renamed.docx', pptxBytes))).toBe('pptx');
    expect(await converter.sniff(await writeFixture(dir, 'cut.pptx', pptxBytes.subarray(0, 2000)))).toBeNull();
  });

  it('reads the OLE2 directory of legacy ppt and doc', async () => {
    const [ppt, doc] = await Promise.all([
      sofficeConvert(files.pptx!, 'ppt', dir, 'deck.ppt', path.join(dir, 'profile-a')),
      sofficeConvert(files.docx!, 'doc', dir, 'notes.doc', path.join(dir, 'profile-b')),
    ]);
    expect(await converter.sniff(ppt)).toBe('ppt');
    expect(await converter.sniff(doc)).toBe('doc');
    files.ppt = ppt;
    files.doc = doc;
  });
});

describe('PDF', () => {
  it('renders every page in order, 1280 wide with a 240 thumbnail, total known from the first page', async () => {
    const { result, pages, totals } = await convert(files.pdf!, 'pdf');
    expect(result).toEqual({ pages: 3 });
    expect(totals).toEqual([3, 3, 3]);
    await expectPages(pages, 3, 842 / 595);
  });

  it('refuses a password-protected PDF as encrypted', async () => {
    expect((await failure(convert(files.encrypted!, 'pdf'))).reason).toBe('encrypted');
  });

  it('refuses a corrupt PDF', async () => {
    const f = await failure(convert(files.corruptPdf!, 'pdf'));
    expect(f).toMatchObject({ reason: 'corrupt', retryable: false });
  });

  it('refuses more than 200 pages before rendering any', async () => {
    const { pages } = await convert(files.pdf!, 'pdf', { maxPages: 3 }); // the limit itself is allowed
    expect(pages).toHaveLength(3);
    let seen = 0;
    const f = await failure(
      converter.convertDocument(files.many!, 'pdf', async () => {
        seen++;
      }),
    );
    expect(f.reason).toBe('too-many-pages');
    expect(f.message).toContain('201');
    expect(seen).toBe(0);
  });

  it('refuses an image that would decode to 900 megapixels (2.7 GB), quickly and without the memory', async () => {
    const before = process.memoryUsage().rss;
    const started = Date.now();
    const f = await failure(convert(files.bomb!, 'pdf'));
    expect(f.reason).toBe('corrupt');
    expect(f.message).toContain('30000 x 30000');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    // The converter still works afterwards.
    expect((await convert(files.pdf!, 'pdf')).result.pages).toBe(3);
  });

  it('serves two documents at once, each in order', async () => {
    const [a, b] = await Promise.all([convert(files.pdf!, 'pdf'), convert(files.pdf!, 'pdf')]);
    expect(a.pages.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(b.pages.map((p) => p.page)).toEqual([1, 2, 3]);
  });

  it('a failing store write (onPage) fails the conversion as retryable, and the next one works', async () => {
    const f = await failure(
      converter.convertDocument(files.pdf!, 'pdf', async (page) => {
        if (page.page === 2) throw new Error('store unavailable');
      }),
    );
    expect(f).toMatchObject({ reason: 'failed', retryable: true, message: 'store unavailable' });
    expect((await convert(files.pdf!, 'pdf')).result.pages).toBe(3);
  });

  it('a cancelled conversion stops with a retryable failure', async () => {
    const controller = new AbortController();
    const f = await failure(
      converter.convertDocument(
        files.many!,
        'pdf',
        async (page) => {
          if (page.page === 1) controller.abort();
        },
        { signal: controller.signal, maxPages: 1000 },
      ),
    );
    expect(f).toMatchObject({ reason: 'failed', retryable: true });
  });

  it('refuses a page whose media box is absurdly tall', async () => {
    expect((await failure(convert(files.tall!, 'pdf'))).reason).toBe('unsupported');
  });

  it('stops at the time limit with timeout', async () => {
    const f = await failure(convert(files.many!, 'pdf', { timeoutMs: 1, maxPages: 1000 }));
    expect(f.reason).toBe('timeout');
    expect((await convert(files.pdf!, 'pdf')).result.pages).toBe(3);
  });
});

describe('Office through LibreOffice', () => {
  it('converts a pptx with Chinese text whose page images show the glyphs, not boxes', async () => {
    const { result, pages } = await convert(files.pptx!, 'pptx');
    expect(result).toEqual({ pages: 3 });
    await expectPages(pages, 3, SLIDE_CM.width / SLIDE_CM.height);
    expect(await glyphProblems(pages[0]!.image)).toEqual([]);
  });

  it('the glyph check fails when LibreOffice has no CJK font (fonts-noto-cjk hidden from fontconfig)', async () => {
    const conf = await writeFixture(
      dir,
      'no-cjk-fonts.conf',
      `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><include ignore_missing="yes">/etc/fonts/fonts.conf</include>` +
        `<selectfont><rejectfont><glob>*CJK*</glob></rejectfont></selectfont></fontconfig>`,
    );
    const bare = createConverter({ workDir: path.join(dir, 'work-no-cjk'), officeEnv: { FONTCONFIG_FILE: conf }, pdfWorkers: 1 });
    try {
      const pages: ConvertedPage[] = [];
      await bare.convertDocument(files.pptx!, 'pptx', async (p) => {
        pages.push(p);
      });
      expect(pages).toHaveLength(3);
      expect((await glyphProblems(pages[0]!.image)).length).toBeGreaterThan(0);
    } finally {
      await bare.close();
    }
  });

  it('converts a docx (two A4 pages)', async () => {
    const { result, pages } = await convert(files.docx!, 'docx');
    expect(result).toEqual({ pages: 2 });
    await expectPages(pages, 2, 21 / 29.7);
  });

  it('converts legacy ppt and doc', async () => {
    expect(files.ppt, 'made by the sniff test').toBeDefined();
    expect((await convert(files.ppt!, 'ppt')).result).toEqual({ pages: 3 });
    expect((await convert(files.doc!, 'doc')).result).toEqual({ pages: 2 });
  });

  it('refuses a corrupt pptx (a valid zip directory around garbage)', async () => {
    const garbage = zipOf([
      { name: '[Content_Types].xml', data: Buffer.from('<Types') },
      { name: 'ppt/presentation.xml', data: Buffer.from('not xml at all \u0000\u0001') },
    ]);
    const file = await writeFixture(dir, 'garbage.pptx', garbage);
    expect(await converter.sniff(file)).toBe('pptx');
    const f = await failure(convert(file, 'pptx'));
    expect(f.reason).toBe('corrupt');
  });

  it('counts pptx slides before LibreOffice runs', async () => {
    const started = Date.now();
    const f = await failure(convert(files.pptx!, 'pptx', { maxPages: 2 }));
    expect(f.reason).toBe('too-many-pages');
    expect(f.message).toContain('3 slides');
    expect(Date.now() - started).toBeLessThan(300); // LibreOffice alone takes a second
  });

  it('refuses a zip bomb before LibreOffice inflates it', async () => {
    const file = await zipBombPptx(files.pptx!, path.join(dir, 'bomb.pptx'), 600 * 1024 * 1024);
    expect((await stat(file)).size).toBeLessThan(5 * 1024 * 1024);
    expect(await converter.sniff(file)).toBe('pptx');
    const started = Date.now();
    const f = await failure(convert(file, 'pptx'));
    expect(f.reason).toBe('corrupt');
    expect(f.message).toMatch(/expand to \d+ MiB/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('never fetches linked content: a docx linking an image on an internal address converts with no request', async () => {
    const http = await import('node:http');
    const requests: string[] = [];
    const server = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const fodt = await writeFixture(
        dir,
        'linked.fodt',
        `<?xml version="1.0" encoding="UTF-8"?><office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text><text:p>链接图片<draw:frame draw:name="i1" text:anchor-type="as-char" svg:width="4cm" svg:height="3cm"><draw:image xlink:href="http://127.0.0.1:${String(port)}/metadata.png" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p></office:text></office:body></office:document>`,
      );
      const docx = await sofficeConvert(fodt, 'docx', dir, 'linked.docx', path.join(dir, 'profile-a'));
      // Control: LibreOffice with a default profile fetches the linked image while converting.
      requests.length = 0;
      await sofficeConvert(docx, 'pdf', dir, 'linked-bare.pdf', path.join(dir, 'profile-b'));
      expect(requests).toContain('/metadata.png');
      requests.length = 0;
      const { result } = await convert(docx, 'docx');
      expect(result.pages).toBe(1);
      expect(requests).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('a LibreOffice that crashes is a retryable failure', async () => {
    // Stands in for soffice: a real process that dies of SIGSEGV, as a crashing LibreOffice does.
    const crash = await writeFixture(dir, 'crashing-soffice', '#!/bin/sh\nkill -SEGV $$\n');
    await chmod(crash, 0o755);
    const crashing = createConverter({ workDir: path.join(dir, 'work-crash'), soffice: crash, warm: false, pdfWorkers: 1 });
    try {
      const f = await failure(crashing.convertDocument(files.docx!, 'docx', async () => undefined));
      expect(f).toMatchObject({ reason: 'failed', retryable: true });
      expect(f.message).toContain('SIGSEGV');
    } finally {
      await crashing.close();
    }
  });

  it('kills LibreOffice at the time limit', async () => {
    const f = await failure(convert(files.docx!, 'docx', { timeoutMs: 300 }));
    expect(f.reason).toBe('timeout');
    expect((await convert(files.docx!, 'docx')).result.pages).toBe(2);
  });
});

describe('video', () => {
  it('remuxes an H.264 mp4 for fast start and makes a poster', async () => {
    const v = await converter.convertVideo(files.mp4!);
    try {
      expect(v).toMatchObject({ width: 320, height: 240 });
      expect(Math.abs(v.durationMs - 3000)).toBeLessThan(150);
      const bytes = await readFile(v.file);
      // moov before mdat: the browser can start playing before the whole file is in.
      expect(bytes.indexOf('moov')).toBeGreaterThan(0);
      expect(bytes.indexOf('moov')).toBeLessThan(bytes.indexOf('mdat'));
      const original = await readFile(files.mp4!);
      expect(original.indexOf('moov')).toBeGreaterThan(original.indexOf('mdat')); // it was not before
      const poster = await sharp(v.poster).metadata();
      expect([poster.format, poster.width, poster.height]).toEqual(['jpeg', 320, 240]);
    } finally {
      await rm(v.file, { force: true });
    }
  });

  it('reports the size a sideways phone video plays at (display matrix), as its poster is', async () => {
    const { execFileSync } = await import('node:child_process');
    const sideways = path.join(dir, 'sideways.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', files.mp4!, '-c', 'copy', '-metadata:s:v', 'rotate=90', sideways]);
    const v = await converter.convertVideo(sideways);
    try {
      expect([v.width, v.height]).toEqual([240, 320]);
      const poster = await sharp(v.poster).metadata();
      expect([poster.width, poster.height]).toEqual([240, 320]);
    } finally {
      await rm(v.file, { force: true });
    }
  });

  it('re-encodes a codec browsers do not play (MPEG-4 part 2) to H.264', async () => {
    const v = await converter.convertVideo(files.mpeg4!);
    try {
      const { execFileSync } = await import('node:child_process');
      const codec = execFileSync('ffprobe', [
        '-v',
        'error',
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=codec_name',
        '-of',
        'csv=p=0',
        v.file,
      ])
        .toString()
        .trim();
      expect(codec).toBe('h264');
    } finally {
      await rm(v.file, { force: true });
    }
  });

  it('refuses what is not a video', async () => {
    expect((await failure(converter.convertVideo(files.pdf!))).reason).toBe('corrupt');
    const cut = await writeFixture(dir, 'cut.mp4', (await readFile(files.mp4!)).subarray(0, 600));
    expect((await failure(converter.convertVideo(cut))).reason).toBe('corrupt');
  });
});

describe('scratch space', () => {
  it('keeps only the LibreOffice profile and home once conversions are over', async () => {
    const left = (await readdir(path.join(dir, 'work'))).filter((name) => !name.startsWith('lo-'));
    expect(left).toEqual([]);
  });

  it('removes profiles of worker processes that are gone, not of live ones', async () => {
    const { spawnSync } = await import('node:child_process');
    const gone = spawnSync('true').pid;
    const work = path.join(dir, 'work');
    await mkdir(path.join(work, `lo-profile-${String(gone)}-0-0`));
    await mkdir(path.join(work, `lo-profile-${String(process.ppid)}-0-0`)); // the test runner: alive
    await removeStaleProfiles(work);
    const names = await readdir(work);
    expect(names).not.toContain(`lo-profile-${String(gone)}-0-0`);
    expect(names).toContain(`lo-profile-${String(process.ppid)}-0-0`);
    expect(names.some((n) => n.startsWith(`lo-profile-${String(process.pid)}-`))).toBe(true); // ours, in use
  });

  it('stops the standby LibreOffice of a worker that was killed, and removes its profile', async () => {
    const { spawn } = await import('node:child_process');
    const work = path.join(dir, 'work-orphan');
    const entry = new URL('../../workers/convert/index.ts', import.meta.url).pathname;
    const worker = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createConverter } from '${entry}'; const c = createConverter({ workDir: '${work}' }); await c.ready; console.log('ready'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    // Whatever happens below, the worker is stopped: a child left running keeps vitest from exiting.
    try {
      await new Promise<void>((resolve, reject) => {
        worker.stdout.on('data', (c: Buffer) => c.toString().includes('ready') && resolve());
        worker.once('exit', (code) => reject(new Error(`worker exited ${String(code)}`)));
      });
      let standby = 0;
      for (let i = 0; i < 100 && !standby; i++) {
        const pidFile = (await readdir(work)).find((n) => n.endsWith('.standby'));
        if (pidFile) standby = Number(await readFile(path.join(work, pidFile), 'utf8'));
        if (!standby) await new Promise((r) => setTimeout(r, 50));
      }
      expect(standby).toBeGreaterThan(0);
      expect(isAlive(standby)).toBe(true);
      worker.kill('SIGKILL'); // no exit handler runs: the standby is orphaned
      await new Promise((r) => worker.once('exit', r));
      expect(isAlive(standby)).toBe(true);
      await removeStaleProfiles(work);
      for (let i = 0; i < 40 && isAlive(standby); i++) await new Promise((r) => setTimeout(r, 50));
      expect(isAlive(standby)).toBe(false);
    } finally {
      if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    }
    expect((await readdir(work)).filter((n) => n.startsWith('lo-profile-'))).toEqual([]);
  });
});
