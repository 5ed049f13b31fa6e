/**
 * The save screen after a take (docs/product/02-live-classroom.md §2, §4): the preview, the file
 * name (trimmed, 1 to 15 characters), save to cloud / save to local / record again / back to home,
 * then the states: uploading (0) with its progress, saved to cloud (1), failed (2: re-upload from
 * the parts already stored, or save locally), saved locally (3). Before a save succeeded, leaving
 * asks first: the take is dropped.
 */
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { STUDIO_FILE_NAME_MAX, studioFileNameProblem } from '#core/contracts/studio.ts';
import { Button } from '#app/components/Button.tsx';
import { useConfirm } from '#app/components/Dialog.tsx';
import { toast } from '#app/lib/toast.ts';
import { formatClock, formatRecordSize } from '#app/recordings/format.ts';
import type { UploadProgress } from './engine/types.ts';
import { downloadName, uploadPercent } from './format.ts';
import { StudioIcon } from './icons.tsx';
import type { Saving } from './useTakeSession.ts';

/** The spec's save states; 'none' is the name form. */
export type SaveState = 'none' | 'uploading' | 'uploaded' | 'failed' | 'local';
/** The numbers of docs/product/02-live-classroom.md §4. */
export const SAVE_STATE_CODE: Record<SaveState, string> = { none: 'none', uploading: '0', uploaded: '1', failed: '2', local: '3' };

export type SaveExit = 'again' | 'home' | 'list' | 'another';

export interface SaveScreenProps {
  saving: Saving;
  progress: UploadProgress | null;
  /** Leaves the screen; `saved` says the take was saved (no question, its files just go). */
  onExit: (exit: SaveExit, saved: boolean) => void;
}

export function SaveScreen({ saving, progress, onExit }: SaveScreenProps) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const nameId = useId();
  const errorId = useId();
  const { take, upload } = saving;
  const [name, setName] = useState(take.meta.fileName ?? '');
  const [problem, setProblem] = useState<'empty' | 'long' | null>(null);
  const [state, setState] = useState<SaveState>('none');
  const [preview, setPreview] = useState<string | null>(null);
  const [previewFailed, setPreviewFailed] = useState(false);
  const [busyLocal, setBusyLocal] = useState(false);

  // The preview plays the take from the disk (an object URL of its blob).
  useEffect(() => {
    let url: string | null = null;
    let current = true;
    take.blob().then(
      (blob) => {
        if (!current) return;
        url = URL.createObjectURL(blob);
        setPreview(url);
      },
      () => current && setPreviewFailed(true),
    );
    return () => {
      current = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [take]);

  const checkedName = (): string | null => {
    const found = studioFileNameProblem(name);
    setProblem(found);
    return found ? null : name.trim();
  };

  const saveCloud = () => {
    if (state === 'uploading') return;
    const fileName = checkedName();
    if (!fileName) return;
    setState('uploading');
    // finish() dedupes a second call while one runs; a call after a failure resumes.
    upload.finish(fileName).then(
      () => setState('uploaded'),
      () => setState('failed'),
    );
  };

  const saveLocal = async () => {
    if (state === 'uploading' || busyLocal) return;
    const fileName = checkedName();
    if (!fileName) return;
    setBusyLocal(true);
    try {
      const blob = await take.blob();
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = downloadName(fileName, take.meta.mediaType);
      a.hidden = true;
      document.body.append(a);
      a.click();
      a.remove();
      // The download holds its own reference; the address is let go once it has surely begun.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setState('local');
      // Kept on this computer: the cloud upload begun while recording is dropped.
      void upload.abort().catch(() => undefined);
      void take.update({ state: 'saved', fileName }).catch(() => undefined);
    } catch {
      toast.error(t('studio.save.saveFailed'));
    } finally {
      setBusyLocal(false);
    }
  };

  const saved = state === 'uploaded' || state === 'local';
  const leave = async (exit: SaveExit) => {
    if (!saved && !(await confirm({ message: t('studio.save.leaveConfirm') }))) return;
    onExit(exit, saved);
  };

  const percent = uploadPercent(progress);
  const waiting = progress?.phase === 'waiting-network';
  const completing = progress?.phase === 'completing';
  const size = formatRecordSize(String(take.meta.bytes)) ?? '';
  const stateText =
    state === 'uploading'
      ? waiting
        ? t('studio.save.waiting')
        : completing
          ? t('studio.save.completing')
          : t('studio.save.uploading')
      : state === 'uploaded'
        ? t('studio.save.uploaded')
        : state === 'failed'
          ? t('studio.save.failed')
          : state === 'local'
            ? t('studio.save.savedLocal')
            : '';

  return (
    <div className="studio-save" data-testid="studio-save" data-save-state={SAVE_STATE_CODE[state]}>
      <section className="studio-save__preview" aria-label={t('studio.save.preview')}>
        {previewFailed ? (
          <div className="studio-save__nopreview">
            <StudioIcon name="alert" size={32} />
            <p>{t('studio.save.previewFailed')}</p>
          </div>
        ) : preview ? (
          <video
            src={preview}
            controls
            playsInline
            preload="auto"
            data-testid="studio-save-preview"
            aria-label={t('studio.save.preview')}
          />
        ) : (
          <span className="spinner spinner--large" aria-hidden="true" />
        )}
      </section>

      <section className="studio-save__panel" aria-labelledby={`${nameId}-title`}>
        <h2 id={`${nameId}-title`} className="studio-save__title">
          {t('studio.save.title')}
        </h2>
        <p className="studio-save__facts" data-testid="studio-save-facts">
          {t('studio.save.facts', { duration: formatClock(take.meta.durationMs), size })}
        </p>

        {state === 'none' || state === 'failed' ? (
          <form
            className="studio-save__form"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              saveCloud();
            }}
          >
            <div className="field">
              <label htmlFor={nameId}>{t('studio.save.name')}</label>
              <input
                id={nameId}
                type="text"
                value={name}
                placeholder={t('studio.save.namePlaceholder')}
                autoComplete="off"
                aria-invalid={problem ? true : undefined}
                aria-describedby={errorId}
                onChange={(e) => {
                  setName(e.currentTarget.value);
                  if (problem) setProblem(null);
                }}
                data-testid="studio-save-name"
              />
              <p
                id={errorId}
                className={problem ? 'field__error' : 'studio-save__hint'}
                role={problem ? 'alert' : undefined}
                data-testid="studio-save-name-error"
              >
                {problem === 'empty'
                  ? t('studio.save.empty')
                  : problem === 'long'
                    ? t('studio.save.long', { n: STUDIO_FILE_NAME_MAX })
                    : t('studio.save.nameHint', { n: STUDIO_FILE_NAME_MAX })}
              </p>
            </div>

            {state === 'failed' ? (
              <div className="studio-save__state studio-save__state--failed" role="alert">
                <StudioIcon name="alert" />
                <div>
                  <strong data-testid="studio-save-state">{stateText}</strong>
                  <p>{t('studio.save.failedHint')}</p>
                  {progress?.error ? <p className="studio-save__reason">{progress.error}</p> : null}
                </div>
              </div>
            ) : null}

            <div className="studio-save__primary">
              <Button type="submit" data-testid="studio-save-cloud">
                <StudioIcon name="upload" size={18} />
                {state === 'failed' ? t('studio.save.retry') : t('studio.save.cloud')}
              </Button>
              <Button variant="secondary" onClick={() => void saveLocal()} loading={busyLocal} data-testid="studio-save-local">
                <StudioIcon name="download" size={18} />
                {state === 'failed' ? t('studio.save.saveLocal') : t('studio.save.local')}
              </Button>
            </div>
          </form>
        ) : null}

        {state === 'uploading' ? (
          <div className="studio-save__state" role="status">
            <div
              className="studio-progress"
              role="progressbar"
              aria-label={t('studio.save.progress')}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={percent}
              aria-valuetext={`${percent}% · ${stateText}`}
              data-testid="studio-save-progress"
            >
              <span className="studio-progress__fill" style={{ width: `${percent}%` }} />
            </div>
            <p className="studio-save__status">
              <span data-testid="studio-save-state">{stateText}</span>
              <span className="studio-save__percent">{percent}%</span>
            </p>
            <p className="studio-save__hint">{t('studio.save.keepOpen')}</p>
            <Button disabled loading data-testid="studio-save-cloud">
              {t('studio.save.cloud')}
            </Button>
          </div>
        ) : null}

        {state === 'uploaded' || state === 'local' ? (
          <div className="studio-save__state studio-save__state--ok" role="status">
            <span className="studio-save__ok">
              <StudioIcon name="check" />
            </span>
            <div>
              <strong data-testid="studio-save-state">{stateText}</strong>
              <p>{state === 'uploaded' ? t('studio.save.uploadedHint') : t('studio.save.savedLocalHint')}</p>
            </div>
          </div>
        ) : null}

        <div className="studio-save__secondary">
          {state === 'uploaded' ? (
            <>
              <Button onClick={() => void leave('list')} data-testid="studio-save-list">
                <StudioIcon name="list" size={18} />
                {t('studio.save.toList')}
              </Button>
              <Button variant="ghost" onClick={() => void leave('another')} data-testid="studio-save-another">
                <StudioIcon name="again" size={18} />
                {t('studio.save.another')}
              </Button>
            </>
          ) : (
            <>
              <Button variant="ghost" onClick={() => void leave('again')} disabled={state === 'uploading'} data-testid="studio-save-again">
                <StudioIcon name="again" size={18} />
                {t('studio.save.again')}
              </Button>
              <Button variant="ghost" onClick={() => void leave('home')} disabled={state === 'uploading'} data-testid="studio-save-home">
                <StudioIcon name="home" size={18} />
                {t('studio.save.home')}
              </Button>
            </>
          )}
        </div>
      </section>
    </div>
  );
}
