/** Sniffing on hand-made containers: OLE2 directories across sectors and loops, zip64, mp4 brands, PDF offsets. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sniffFile } from './sniff.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-sniff-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function sniff(bytes: Buffer): Promise<string | null> {
  const file = path.join(dir, `f${String(n++)}.bin`);
  await writeFile(file, bytes);
  return sniffFile(file);
}

const FREE = 0xffffffff;
const END = 0xfffffffe;

/** A 512-byte-sector compound file: FAT in sector 0, directory sectors chained as `fat` says, entries as given. */
function ole(entries: Array<{ name: string; type: number }>, dirSectors: number, fat: number[]): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header);
  header.writeUInt16LE(0x3e, 24);
  header.writeUInt16LE(3, 26);
  header.writeUInt16LE(0xfffe, 28);
  header.writeUInt16LE(9, 30);
  header.writeUInt16LE(6, 32);
  header.writeUInt32LE(1, 44);
  header.writeUInt32LE(1, 48);
  header.writeUInt32LE(4096, 56);
  header.writeUInt32LE(END, 60);
  header.writeUInt32LE(END, 68);
  for (let i = 0; i < 109; i++) header.writeUInt32LE(i === 0 ? 0 : FREE, 76 + i * 4);
  const fatSector = Buffer.alloc(512, 0xff);
  fat.forEach((v, i) => fatSector.writeUInt32LE(v, i * 4));
  const dirs = Buffer.alloc(512 * dirSectors);
  entries.forEach((e, i) => {
    const at = i * 128;
    const name = Buffer.from(`${e.name}\u0000`, 'utf16le');
    name.copy(dirs, at);
    dirs.writeUInt16LE(name.length, at + 64);
    dirs[at + 66] = e.type;
  });
  return Buffer.concat([header, fatSector, dirs]);
}

describe('OLE2', () => {
  it('finds the PowerPoint and Word streams', async () => {
    const fat = [0xfffffffd, END];
    expect(
      await sniff(
        ole(
          [
            { name: 'Root Entry', type: 5 },
            { name: 'PowerPoint Document', type: 2 },
          ],
          1,
          fat,
        ),
      ),
    ).toBe('ppt');
    expect(
      await sniff(
        ole(
          [
            { name: 'Root Entry', type: 5 },
            { name: 'WordDocument', type: 2 },
            { name: '1Table', type: 2 },
          ],
          1,
          fat,
        ),
      ),
    ).toBe('doc');
    // An Excel workbook, or the name only as a storage (type 1), is neither.
    expect(
      await sniff(
        ole(
          [
            { name: 'Root Entry', type: 5 },
            { name: 'Workbook', type: 2 },
          ],
          1,
          fat,
        ),
      ),
    ).toBeNull();
    expect(
      await sniff(
        ole(
          [
            { name: 'Root Entry', type: 5 },
            { name: 'WordDocument', type: 1 },
          ],
          1,
          fat,
        ),
      ),
    ).toBeNull();
  });

  it('follows the directory chain through the FAT, and stops on a loop', async () => {
    const entries = [
      { name: 'Root Entry', type: 5 },
      ...Array.from({ length: 4 }, (_, i) => ({ name: `S${String(i)}`, type: 2 })),
      { name: 'PowerPoint Document', type: 2 },
    ];
    // Directory in sectors 1 -> 2: the stream is in the fifth entry, the second sector.
    expect(await sniff(ole(entries, 2, [0xfffffffd, 2, END]))).toBe('ppt');
    // The chain ends after sector 1: the second sector is never read.
    expect(await sniff(ole(entries, 2, [0xfffffffd, END, END]))).toBeNull();
    // Sector 1 points at itself: read once, then the loop is noticed.
    expect(await sniff(ole(entries, 2, [0xfffffffd, 1]))).toBeNull();
  });

  it('refuses a truncated header', async () => {
    expect(await sniff(ole([{ name: 'Root Entry', type: 5 }], 1, [0xfffffffd, END]).subarray(0, 300))).toBeNull();
  });
});

/** A stored (uncompressed) zip with zip64 end records and sizes in the zip64 extra field. */
function zip64(names: string[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const n of names) {
    const name = Buffer.from(n);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(45, 4);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(45, 4);
    cd.writeUInt16LE(45, 6);
    cd.writeUInt32LE(0xffffffff, 20);
    cd.writeUInt32LE(0xffffffff, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt16LE(20, 30);
    cd.writeUInt32LE(offset, 42);
    const extra = Buffer.alloc(20);
    extra.writeUInt16LE(0x0001, 0);
    extra.writeUInt16LE(16, 2);
    central.push(cd, name, extra);
    offset += 30 + name.length;
  }
  const cdBuf = Buffer.concat(central);
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeBigUInt64LE(BigInt(names.length), 24);
  record.writeBigUInt64LE(BigInt(names.length), 32);
  record.writeBigUInt64LE(BigInt(cdBuf.length), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + cdBuf.length), 8);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 12);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([...locals, cdBuf, record, locator, end]);
}

describe('ZIP', () => {
  it('reads a zip64 central directory', async () => {
    expect(await sniff(zip64(['[Content_Types].xml', 'word/document.xml']))).toBe('docx');
    expect(await sniff(zip64(['[Content_Types].xml', 'ppt/presentation.xml', 'ppt/slides/slide1.xml']))).toBe('pptx');
    expect(await sniff(zip64(['[Content_Types].xml', 'xl/workbook.xml']))).toBeNull();
    expect(await sniff(zip64(['ppt/presentation.xml']))).toBeNull(); // no content types: not Office Open XML
  });

  it('is not fooled by %PDF- inside a zip', async () => {
    expect(await sniff(zip64(['%PDF-1.7.txt']))).toBeNull();
  });
});

function ftyp(major: string, compatible: string[]): Buffer {
  const box = Buffer.alloc(16 + compatible.length * 4);
  box.writeUInt32BE(box.length, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(major, 8, 'latin1');
  compatible.forEach((b, i) => box.write(b, 16 + i * 4, 'latin1'));
  return Buffer.concat([box, Buffer.alloc(64)]);
}

describe('mp4 and PDF', () => {
  it('accepts mp4 brands, not HEIF/AVIF pictures or QuickTime', async () => {
    expect(await sniff(ftyp('isom', ['isom', 'avc1']))).toBe('mp4');
    expect(await sniff(ftyp('M4V ', []))).toBe('mp4');
    expect(await sniff(ftyp('xyz1', ['mp42']))).toBe('mp4');
    expect(await sniff(ftyp('heic', ['mif1', 'heic']))).toBeNull();
    expect(await sniff(ftyp('avif', ['avif', 'mif1', 'miaf']))).toBeNull();
    expect(await sniff(ftyp('qt  ', ['qt  ']))).toBeNull();
  });

  it('finds %PDF- in the first KiB only', async () => {
    expect(await sniff(Buffer.from('%PDF-1.4\n'))).toBe('pdf');
    expect(await sniff(Buffer.concat([Buffer.alloc(500, 0x20), Buffer.from('%PDF-1.4\n')]))).toBe('pdf');
    expect(await sniff(Buffer.concat([Buffer.alloc(2000, 0x20), Buffer.from('%PDF-1.4\n')]))).toBeNull();
    expect(await sniff(Buffer.from('hello'))).toBeNull();
  });
});
