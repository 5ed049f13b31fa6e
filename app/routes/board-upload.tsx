import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { data } from 'react-router';
import type { Route } from './+types/board-upload.ts';
import { Brand } from '#app/components/Brand.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { sendPhotoToBoard, type PhotoStage } from '#app/board/phone-upload.ts';
import { isRouteRoomId } from '#app/lib/names.ts';
import '#app/board/board.css';

/**
 * The phone photo page, opened from the toolbar's QR code: `/upload/{userId}/{roomNumber}?t=<board
 * token>&p=<page>`. It works without a session: the board token in the address is the permission
 * (it names the user and the room, and expires).
 */
export function loader({ params, url }: Route.LoaderArgs) {
  if (!isRouteRoomId(params.id) || !/^[A-Za-z0-9_-]{1,64}$/.test(params.userId)) throw data(null, { status: 404 });
  const page = Number(url.searchParams.get('p') ?? '0');
  return {
    roomNumber: params.id,
    userId: params.userId,
    token: url.searchParams.get('t') ?? '',
    page: Number.isInteger(page) && page >= 0 && page <= 20 ? page : 0,
  };
}

export function meta() {
  return [{ title: '板书 · 手机传图' }, { name: 'viewport', content: 'width=device-width, initial-scale=1' }];
}

export default function BoardUpload({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [stage, setStage] = useState<PhotoStage | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const busy = stage?.kind === 'preparing' || stage?.kind === 'uploading' || stage?.kind === 'placing';

  const pick = async (file: File) => {
    if (preview) URL.revokeObjectURL(preview);
    setPreview(URL.createObjectURL(file));
    await sendPhotoToBoard(file, { token: loaderData.token, uid: loaderData.userId, page: loaderData.page, onStage: setStage });
  };

  if (!loaderData.token) {
    return (
      <main id="main" className="photo-upload">
        <Brand />
        <p role="alert">{t('board.upload.invalid')}</p>
      </main>
    );
  }
  return (
    <main id="main" className="photo-upload">
      <div className="photo-upload__bar">
        <Brand />
        <LanguageSwitch />
      </div>
      <h1>{t('board.upload.title')}</h1>
      <p className="muted">{t('board.upload.room', { id: loaderData.roomNumber })}</p>
      <label className="photo-upload__pick" aria-disabled={busy}>
        <input
          ref={input}
          type="file"
          accept="image/*"
          capture="environment"
          className="visually-hidden"
          disabled={busy}
          data-testid="photo-input"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = '';
            if (file) void pick(file);
          }}
        />
        {t('board.upload.pick')}
      </label>
      {stage?.kind === 'uploading' || stage?.kind === 'preparing' || stage?.kind === 'placing' ? (
        <div role="status">
          <progress
            max={100}
            value={stage.kind === 'uploading' ? Math.round(stage.fraction * 100) : stage.kind === 'placing' ? 100 : 0}
            aria-label={t('board.upload.title')}
          />
          <p>
            {t('board.upload.sending', {
              n: stage.kind === 'uploading' ? Math.round(stage.fraction * 100) : stage.kind === 'placing' ? 100 : 0,
            })}
          </p>
        </div>
      ) : null}
      {stage?.kind === 'done' ? (
        <p role="status" data-testid="photo-done">
          {t('board.upload.done')}
        </p>
      ) : null}
      {stage?.kind === 'failed' ? (
        <p role="alert" data-testid="photo-failed">
          {stage.message || t('board.upload.failed')}
        </p>
      ) : null}
      {preview ? <img src={preview} alt="" /> : null}
    </main>
  );
}
