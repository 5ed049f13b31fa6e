import { describe, expect, it } from 'vitest';
import { HOLD_MS, NO_SPEAKING, nextSpeaking, speakingIds } from './speaking.ts';

describe('the speaking outline', () => {
  it('comes on with a loud report and holds through short pauses', () => {
    let s = nextSpeaking(NO_SPEAKING, { a: 40 }, 0);
    expect([...speakingIds(s)]).toEqual(['a']);
    expect(s.active).toBe('a');
    s = nextSpeaking(s, {}, 300);
    expect(speakingIds(s).has('a')).toBe(true);
    s = nextSpeaking(s, {}, HOLD_MS + 1);
    expect(speakingIds(s).size).toBe(0);
    expect(s.active).toBe('');
  });

  it('ignores a faint level', () => {
    expect(speakingIds(nextSpeaking(NO_SPEAKING, { a: 15 }, 0)).size).toBe(0);
  });

  it('keeps the active speaker unless another is clearly louder', () => {
    let s = nextSpeaking(NO_SPEAKING, { a: 40 }, 0);
    s = nextSpeaking(s, { a: 40, b: 45 }, 300);
    expect(s.active).toBe('a');
    s = nextSpeaking(s, { a: 20, b: 80 }, 600);
    s = nextSpeaking(s, { a: 20, b: 80 }, 900);
    expect(s.active).toBe('b');
  });

  it('returns the same state when nothing is heard', () => {
    expect(nextSpeaking(NO_SPEAKING, {}, 5)).toBe(NO_SPEAKING);
  });
});
