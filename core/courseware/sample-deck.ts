/**
 * The sample courseware deck the product ships (ADR 092): pre-rendered slide images committed
 * under core/courseware/sample-deck/ (drawn by scripts/sample-deck.ts). A demo room shows it as
 * a real document of its host's library, with no conversion: the pages are copied once into the
 * object store (disk or S3) under one shared prefix, and each demo gets its own documents row
 * pointing there, so it pages, carries ink and signs its links like any converted courseware.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../platform/clock.ts';
import type { ObjectStore } from '../platform/objects.ts';
import type { DocumentRepository, DocumentRow } from './document.repository.ts';
import { pageKey, thumbKey } from './courseware-room.ts';

/** What the slides say (both languages on each slide); the script draws them. */
export const SAMPLE_DECK_SLIDES = [
  {
    zh: { title: '欢迎来到板书演示教室', points: ['这是一间真实的教室，只属于你', '无需注册，打开即可体验', '演示教室到时自动结束'] },
    en: {
      title: 'Welcome to the Banshu demo room',
      points: ['A real classroom, yours alone', 'No account needed: just try it', 'The demo room ends by itself after a while'],
    },
  },
  {
    zh: { title: '在课件上书写', points: ['选择画笔，直接在这一页上写字', '每一页的笔迹各自保存', '邀请的同学也能看到你的笔迹'] },
    en: {
      title: 'Write on the courseware',
      points: ['Pick the pen and write on this page', 'Each page keeps its own ink', 'Everyone you invite sees it too'],
    },
  },
  {
    zh: { title: '翻页与白板', points: ['用下方的箭头翻到下一页', '切换到白板，自由讲解', '老师翻页，学生同步翻页'] },
    en: {
      title: 'Pages and the whiteboard',
      points: ['Turn pages with the arrows below', 'Switch to the whiteboard to explain freely', 'Students follow the teacher’s page'],
    },
  },
  {
    zh: { title: '开始你自己的课堂', points: ['复制邀请链接，请朋友一起来试', '聊天、摄像头、麦克风一应俱全', '登录后即可创建正式教室'] },
    en: {
      title: 'Start your own classroom',
      points: [
        'Copy the invite link and try it with a friend',
        'Chat, camera and microphone included',
        'Sign in to create a real classroom',
      ],
    },
  },
] as const;

export const SAMPLE_DECK_SIZE = { width: 1280, height: 720 } as const;
/** Where the pages live in the object store; a new version of the slides takes a new prefix. */
export const SAMPLE_DECK_PREFIX = 'sample/demo-deck-v1';
/** Not an MD5: no upload's hash check ever matches the sample deck's rows. */
export const SAMPLE_DECK_HASH = 'sample-deck-v1';
export const SAMPLE_DECK_NAME = '板书入门 Banshu tour.pdf';

const DIR = path.resolve(import.meta.dirname, 'sample-deck');
const pageFile = (n: number) => path.join(DIR, `${String(n)}.jpg`);

export class SampleDeck {
  readonly #objects: ObjectStore;
  readonly #repo: DocumentRepository;
  readonly #clock: Clock;
  constructor(objects: ObjectStore, repo: DocumentRepository, clock: Clock) {
    this.#objects = objects;
    this.#repo = repo;
    this.#clock = clock;
  }

  get pageCount(): number {
    return SAMPLE_DECK_SLIDES.length;
  }

  /** Copies any missing page (and its thumbnail) into the object store; a few HEADs when all are there. */
  async ensureStored(): Promise<void> {
    for (let n = 1; n <= this.pageCount; n++) {
      const [page, thumb] = await Promise.all([
        this.#objects.head(pageKey(SAMPLE_DECK_PREFIX, n)),
        this.#objects.head(thumbKey(SAMPLE_DECK_PREFIX, n)),
      ]);
      if (page && thumb) continue;
      const bytes = new Uint8Array(await readFile(pageFile(n)));
      if (!page) await this.#objects.put(pageKey(SAMPLE_DECK_PREFIX, n), bytes, 'image/jpeg');
      if (!thumb) await this.#objects.put(thumbKey(SAMPLE_DECK_PREFIX, n), bytes, 'image/jpeg');
    }
  }

  /** A converted document (status 3) of the sample deck in `userId`'s library. */
  async register(userId: string): Promise<DocumentRow> {
    const now = this.#clock.now();
    const { width, height } = SAMPLE_DECK_SIZE;
    return this.#repo.insert({
      user_id: userId,
      name: SAMPLE_DECK_NAME,
      source_key: pageKey(SAMPLE_DECK_PREFIX, 1),
      pages_prefix: SAMPLE_DECK_PREFIX,
      file_hash: SAMPLE_DECK_HASH,
      task_id: `sample-${crypto.randomUUID()}`,
      document_type: 1,
      status: 3,
      size: '0',
      page_count: this.pageCount,
      page_sizes: JSON.stringify(Array.from({ length: this.pageCount }, () => [width, height])),
      created_at: now,
      updated_at: now,
    });
  }
}
