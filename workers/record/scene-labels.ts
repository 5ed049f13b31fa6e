/**
 * The tiles' name strips (ADR 075): names as the room tells them (the join's member list, each
 * members event), everyone who has sat in the room read once at open, anyone else read on first
 * use (a blank strip until then). A strip is drawn once per (person, size) and kept.
 */
import type { Buffer } from 'node:buffer';
import type { Member } from '#core/contracts/room-events.ts';
import type { Logger } from '#core/platform/logger.ts';
import type { SceneRepository } from '#core/recording/scene.repository.ts';
import { drawLabel } from './scene-pixels.ts';

/** Name strips kept (people x tile sizes). */
const LABEL_CACHE = 256;

export class SceneLabels {
  readonly #repo: SceneRepository;
  readonly #logger: Logger;
  /** A name changed: the scene's version moves, so the compositor takes the strips again. */
  readonly #changed: () => void;
  readonly #names = new Map<string, string>();
  readonly #asking = new Set<string>();
  readonly #labels = new Map<string, Buffer>();
  /** Trophies per person in this class (the class tools' rewards, ADR 115): shown at the strip's end. */
  #trophies: Readonly<Record<string, number>> = {};

  constructor(repo: SceneRepository, logger: Logger, changed: () => void) {
    this.#repo = repo;
    this.#logger = logger;
    this.#changed = changed;
  }

  /** Names as the room tells them (the join's member list, each members event). */
  heard(members: readonly Pick<Member, 'userId' | 'name'>[]): void {
    this.#set(members.map((m) => ({ id: m.userId, name: m.name })));
  }

  #set(rows: ReadonlyArray<{ id: string; name: string }>): void {
    let changed = false;
    for (const r of rows) {
      if (this.#names.get(r.id) === r.name) continue;
      this.#names.set(r.id, r.name);
      for (const k of [...this.#labels.keys()]) if (k.startsWith(`${r.id}|`)) this.#labels.delete(k);
      changed = true;
    }
    if (changed) this.#changed();
  }

  /** The class's trophies as the room tells them (each `tools` state): a strip whose count changed is drawn again. */
  trophies(rewards: Readonly<Record<string, number>>): void {
    this.#trophies = rewards;
  }

  /** Names of everyone who has sat in the room (read once, at open: the member list holds only who is online). */
  async loadSeated(roomNumber: string): Promise<void> {
    this.#set(await this.#repo.seatedNames(roomNumber));
  }

  /** Names of people the room's member list did not tell (someone who came later, a tile seen first): read from their accounts. */
  async load(userIds: readonly string[]): Promise<void> {
    const rows = await this.#repo.names(userIds);
    // Someone asked for who has no account row keeps a blank strip, and is not asked for again.
    const found = new Set(rows.map((r) => r.id));
    for (const id of userIds) if (!found.has(id) && !this.#names.has(id)) this.#names.set(id, '');
    this.#set(rows);
  }

  label(userId: string, w: number, h: number): Buffer {
    const trophies = this.#trophies[userId] ?? 0;
    const key = `${userId}|${w}|${h}|${trophies}`;
    const hit = this.#labels.get(key);
    if (hit) return hit;
    const name = this.#names.get(userId);
    if (name === undefined && /^\d{1,19}$/.test(userId) && !this.#asking.has(userId)) {
      // Someone not seen yet: a blank strip now, their name as soon as it is read (the version moves).
      this.#asking.add(userId);
      this.load([userId]).then(
        () => this.#asking.delete(userId),
        (err: unknown) => {
          this.#asking.delete(userId);
          this.#logger.warn({ err, userId }, 'recording scene: a name could not be read');
        },
      );
    }
    // A name not read yet shares one blank strip per size: the compositor compares strips by identity.
    const cacheKey = name === undefined ? `|${w}|${h}` : key;
    const blank = this.#labels.get(cacheKey);
    if (blank) return blank;
    const strip = drawLabel(name ?? '', w, h, name === undefined ? 0 : trophies);
    this.#labels.set(cacheKey, strip);
    if (this.#labels.size > LABEL_CACHE) this.#labels.delete(this.#labels.keys().next().value!);
    return strip;
  }
}
