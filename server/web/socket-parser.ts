/**
 * socket.io's own parser, with two changes to its encoder for the board channel:
 * - a JsonText inside a packet is written as its text (core/board/json-text.ts), so the board's
 *   stored snapshot goes out without being parsed and serialised again;
 * - acks on `/board` skip socket.io's search for binary attachments (a walk over every value of a
 *   17 MiB answer): the board contract's answers are JSON only.
 * The wire format is unchanged; clients use the stock parser. (`encodeAsString` is private in the
 * typings only; socket.io-parser is pinned.)
 */
import { Decoder, Encoder, PacketType, type Packet } from 'socket.io-parser';
import { spliceJsonText } from '#core/board/json-text.ts';
import { BOARD_NAMESPACE } from '#core/contracts/board.ts';

class SplicingEncoder extends Encoder {
  override encode(obj: Packet): Array<string | Uint8Array> {
    return spliceJsonText(() =>
      obj.type === PacketType.ACK && obj.nsp === BOARD_NAMESPACE
        ? [(this as unknown as { encodeAsString(p: Packet): string }).encodeAsString(obj)]
        : (super.encode(obj) as Array<string | Uint8Array>),
    );
  }
}

export const socketParser = { Encoder: SplicingEncoder, Decoder };
