/**
 * JSON that is already text: a value held as its serialised form (a layer's stored snapshot), so
 * a cold `getBoard` can send it without parsing and re-serialising megabytes.
 *
 * Anywhere a plain `JSON.stringify` meets it, `toJSON` parses the text, so the result is always the
 * same JSON. Inside `spliceJsonText` (the channel's socket.io encoder) it stands for a placeholder
 * that is then replaced by the text itself. The placeholder starts with a NUL and a random key made
 * when the process starts, which no string sent by a client can know.
 */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toJSON(): unknown {
    return splicing ? splicing(this) : JSON.parse(this.text);
  }
}

const KEY = `\u0000json-text:${crypto.randomUUID()}:`;
/** The placeholder as JSON.stringify writes it (the NUL escaped), up to the index. */
const QUOTED_KEY = JSON.stringify(KEY).slice(0, -1);

let splicing: ((t: JsonText) => string) | null = null;

/**
 * Runs `encode` (which serialises with JSON.stringify, maybe more than once) with every JsonText
 * standing for a placeholder, then puts each text in its placeholder's place in the string results.
 */
export function spliceJsonText<T>(encode: () => T[]): T[] {
  const found: JsonText[] = [];
  splicing = (t) => {
    found.push(t);
    return `${KEY}${String(found.length - 1)}`;
  };
  let out: T[];
  try {
    out = encode();
  } finally {
    splicing = null;
  }
  if (!found.length) return out;
  return out.map((part) => (typeof part === 'string' ? (splice(part, found) as T) : part));
}

function splice(s: string, found: JsonText[]): string {
  let from = s.indexOf(QUOTED_KEY);
  if (from < 0) return s;
  let out = '';
  let done = 0;
  while (from >= 0) {
    const end = s.indexOf('"', from + QUOTED_KEY.length);
    const index = Number(s.slice(from + QUOTED_KEY.length, end));
    out += s.slice(done, from) + found[index]!.text;
    done = end + 1;
    from = s.indexOf(QUOTED_KEY, done);
  }
  return out + s.slice(done);
}
