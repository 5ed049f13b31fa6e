/**
 * What the toolbar adds or wipes beyond the pen: a picture from this device (checked, compressed,
 * uploaded, placed at the middle of the view), the QR that lets a phone send one, and clearing
 * the page after a confirmation.
 */
import { useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { BoardRenderer } from '#core/board/draw/renderer.ts';
import { imagePlan, placeImage } from '#core/board/draw/geometry.ts';
import { useConfirm } from '#app/components/Dialog.tsx';
import { codeMessage } from '#app/lib/messages.ts';
import { currentLang } from '#app/lib/lang.ts';
import { toast } from '#app/lib/toast.ts';
import { prepareBoardImage, uploadBoardImage } from './images.ts';
import { createWbToken, type ImageUrls } from './net.ts';
import type { BoardStore } from './store.ts';

export function useBoardInserts(options: {
  store: BoardStore | null;
  page: string;
  pageIndex: number;
  canDraw: boolean;
  roomNumber: string;
  myId: string;
  token: () => string;
  imageUrls: ImageUrls;
  rendererRef: RefObject<BoardRenderer | null>;
  /** Clearing the page drops the selection. */
  onCleared: () => void;
}) {
  const { store, page, pageIndex, canDraw, roomNumber, myId, token, imageUrls, rendererRef, onCleared } = options;
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [uploading, setUploading] = useState(false);
  const [phoneQr, setPhoneQr] = useState<string | null>(null);

  const clearAll = async () => {
    if (!store || !canDraw) return;
    if (await confirm({ message: t('board.clearConfirm') })) {
      store.clear(page);
      onCleared();
    }
  };

  const addImage = async (file: File) => {
    if (!store || !canDraw) return;
    const plan = imagePlan(file.type, file.name, file.size);
    if (plan === 'badType') return void toast.error(t('board.image.onlyJpgPng'));
    if (plan === 'tooLarge') return void toast.error(t('board.image.tooLarge'));
    setUploading(true);
    try {
      const image = await prepareBoardImage(file, plan === 'compress');
      const answer = await uploadBoardImage(image, { token: token(), lang: currentLang() });
      if (answer.code !== '0' || !answer.data) {
        toast.error(answer.msg || codeMessage(answer.code, currentLang()) || t('board.image.failed'));
        return;
      }
      if (answer.data.url) imageUrls.set(answer.data.key, answer.data.url);
      const centre = rendererRef.current?.visibleCentre() ?? { x: 512, y: 384 };
      const box = placeImage(image.width, image.height, centre);
      store.create(page, 'uploadImg', { kind: 'image', src: answer.data.key, ...box });
    } catch {
      toast.error(t('board.image.failed'));
    } finally {
      setUploading(false);
    }
  };

  const openPhone = async () => {
    const fresh = await createWbToken(myId, roomNumber);
    const tk = fresh?.token ?? token();
    const url = new URL(`/upload/${encodeURIComponent(myId)}/${encodeURIComponent(roomNumber)}`, window.location.origin);
    url.searchParams.set('t', tk);
    url.searchParams.set('p', String(pageIndex));
    const QRCode = await import('qrcode');
    setPhoneQr(await QRCode.toDataURL(url.toString(), { margin: 1, width: 200, errorCorrectionLevel: 'L' }));
  };

  return { uploading, clearAll, addImage, phoneQr, openPhone, closePhone: () => setPhoneQr(null) };
}
