/**
 * socket.io's own parser, with one change to its encoder: a JsonText inside a packet is written as
 * its text (core/board/json-text.ts), so the board's stored snapshot goes out without being parsed
 * and serialised again. The wire format is unchanged; clients use the stock parser.
 */
import { Decoder, Encoder } from 'socket.io-parser';
import { spliceJsonText } from '#core/board/json-text.ts';

class SplicingEncoder extends Encoder {
  override encode(obj: Parameters<Encoder['encode']>[0]): Array<string | Uint8Array> {
    return spliceJsonText(() => super.encode(obj) as Array<string | Uint8Array>);
  }
}

export const socketParser = { Encoder: SplicingEncoder, Decoder };
