/**
 * The buzzer of the class tools (issue 30, ADR 113): the creator opens a round and closes the
 * buzzer; the first student's press of the round to reach the server wins it.
 */
import { buzzerTaken, toolGone } from '../platform/errors.ts';
import type { BuzzerPublic } from '../contracts/class-tools.ts';
import type { ToolsActor, ToolsCore } from './tools-core.ts';

export class BuzzerTools {
  readonly #core: ToolsCore;
  /** Buzzer presses of one room, one after another in the order they arrived at this node. */
  readonly #presses = new Map<string, Promise<unknown>>();
  /** Rounds known won (class id -> round): later presses of it are answered without the database. */
  readonly #won = new Map<string, number>();

  constructor(core: ToolsCore) {
    this.#core = core;
  }

  async buzzerOpen(actor: ToolsActor): Promise<BuzzerPublic> {
    this.#core.onlyCreator(actor);
    const room = await this.#core.openClass(actor);
    await this.#core.repo.openBuzzer(room.id);
    return (await this.#core.changed(room, actor.room)).buzzer!;
  }

  /**
   * The first press of the round to reach the server wins: presses of a room run one after another
   * in the order they arrived here (queued before anything is awaited), and the win is one
   * conditional write, so a press on another node cannot win the same round too.
   */
  buzzerPress(actor: ToolsActor, { round }: { round: number }): Promise<BuzzerPublic> {
    this.#core.onlyStudent(actor, 'press');
    const at = this.#core.clock.now();
    const prev = this.#presses.get(actor.room) ?? Promise.resolve();
    const mine = prev.then(
      () => this.#press(actor, round, at),
      () => this.#press(actor, round, at),
    );
    const tail = mine.catch(() => undefined);
    this.#presses.set(actor.room, tail);
    void tail.then(() => {
      if (this.#presses.get(actor.room) === tail) this.#presses.delete(actor.room);
    });
    return mine;
  }

  async #press(actor: ToolsActor, round: number, at: Date): Promise<BuzzerPublic> {
    const room = await this.#core.openClass(actor, true);
    if (this.#won.get(room.id) === round) throw buzzerTaken();
    if (await this.#core.repo.pressBuzzer(room.id, round, actor.uid, at)) {
      if (this.#won.size > 10_000) this.#won.clear();
      this.#won.set(room.id, round);
      return (await this.#core.changed(room, actor.room)).buzzer!;
    }
    const row = await this.#core.repo.row(room.id);
    if (row.buzzer_round === round && row.buzzer_status === 'won') {
      this.#won.set(room.id, round);
      throw buzzerTaken();
    }
    throw toolGone('buzzer round');
  }

  async buzzerClose(actor: ToolsActor): Promise<null> {
    this.#core.onlyCreator(actor);
    const room = await this.#core.openClass(actor);
    const row = await this.#core.repo.row(room.id);
    if (!row.buzzer_status) throw toolGone('no buzzer');
    await this.#core.repo.update(room.id, { buzzer_status: null, buzzer_winner: null, buzzer_won_at: null });
    await this.#core.changed(room, actor.room);
    return null;
  }
}
