/**
 * The phone photo path: resize (width 2048, quality 0.8, orientation corrected), upload to the
 * board image store with progress, then put the picture on the board of the room as its owner,
 * through the same `/board` channel and checks as any other operation.
 */
import { io } from 'socket.io-client';
import { openChannel } from '#core/channel/open.ts';
import { BOARD_NAMESPACE, BOARD_PROTOCOL_VERSION, boardChannel, type BoardOp } from '#core/contracts/board.ts';
import type { Ack } from '#core/contracts/room-events.ts';
import { channelLog } from '#app/lib/client-log.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { PHOTO_QUALITY, PHOTO_WIDTH, placeImage } from '#core/board/draw/geometry.ts';
import { resizeImage, uploadBoardImage } from './images.ts';
import { newId } from './store.ts';

export type PhotoStage =
  | { kind: 'preparing' }
  | { kind: 'uploading'; fraction: number }
  | { kind: 'placing' }
  | { kind: 'done'; id: string }
  | { kind: 'failed'; message: string };

const CONNECT_TIMEOUT_MS = 10_000;

function failed(code: string, msg: string): PhotoStage {
  return { kind: 'failed', message: msg || codeMessage(code, currentLang()) || '' };
}

/** Sends one create over a short-lived board connection; resolves with the ack. */
function placeOnBoard(token: string, op: BoardOp): Promise<Ack<{ seq: number }>> {
  return new Promise((resolve) => {
    const socket = io(BOARD_NAMESPACE, {
      auth: { token, version: BOARD_PROTOCOL_VERSION },
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
    });
    // The answer is parsed by the contract's schema (ADR 108); the connection's timer below bounds it all.
    const channel = openChannel(boardChannel, socket, { log: channelLog(), timeoutMs: CONNECT_TIMEOUT_MS });
    let settled = false;
    const done = (ack: Ack<{ seq: number }>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.disconnect();
      resolve(ack);
    };
    const timer = setTimeout(() => done({ code: 'network', msg: '' }), CONNECT_TIMEOUT_MS);
    socket.on('connect', () => channel.call('sync', op, done));
    socket.on('connect_error', (e: Error) => done({ code: e.message, msg: (e as Error & { data?: Ack }).data?.msg ?? '' }));
  });
}

export async function sendPhotoToBoard(
  file: File,
  options: { token: string; uid: string; page: number; onStage: (stage: PhotoStage) => void },
): Promise<PhotoStage> {
  const report = (stage: PhotoStage) => {
    options.onStage(stage);
    return stage;
  };
  report({ kind: 'preparing' });
  let image;
  try {
    image = await resizeImage(file, PHOTO_WIDTH, PHOTO_QUALITY);
  } catch {
    return report(failed('', ''));
  }
  report({ kind: 'uploading', fraction: 0 });
  const answer = await uploadBoardImage(image, {
    token: options.token,
    lang: currentLang(),
    onProgress: (fraction) => options.onStage({ kind: 'uploading', fraction }),
  });
  if (answer.code !== '0' || !answer.data) return report(failed(answer.code, answer.msg));
  report({ kind: 'placing' });
  const id = newId('i');
  const box = placeImage(image.width, image.height, { x: 512, y: 384 });
  const ack = await placeOnBoard(options.token, {
    opId: newId('o'),
    type: 'create',
    btype: 'uploadImg',
    id,
    // The page the teacher is on as the photo arrived, not the one in the QR link (ADR 034).
    page: `wb:${answer.data.page ?? options.page}`,
    data: { kind: 'image', src: answer.data.key, ...box },
  });
  if (ack.code !== '0') return report(failed(ack.code, ack.msg));
  return report({ kind: 'done', id });
}
