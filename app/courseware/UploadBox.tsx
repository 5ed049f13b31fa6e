/**
 * The upload area (docs/product/03-board-courseware-billing.md §2.1 default and uploading views, §2.3 upload button): a button that
 * opens the file picker, the hint of what is accepted, then the steps with their progress bars
 * (hash, upload, conversion), the tip about long documents and the cancel link.
 */
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { acceptAttribute } from './files.ts';
import type { Uploader } from './useUploader.ts';

export function Progress({ label, value, testId }: { label: string; value: number | null; testId: string }) {
  return (
    <div className="cw-progress" data-testid={testId}>
      <div className="cw-progress__label">
        <span>{label}</span>
        {value === null ? (
          <span className="spinner spinner--small" aria-hidden="true" />
        ) : (
          <span data-testid={`${testId}-value`}>{value}%</span>
        )}
      </div>
      <div
        className="cw-progress__track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={value ?? undefined}
        aria-busy={value === null}
      >
        <div className={`cw-progress__bar${value === null ? ' cw-progress__bar--busy' : ''}`} style={{ width: `${value ?? 100}%` }} />
      </div>
    </div>
  );
}

export interface UploadBoxProps {
  uploader: Uploader;
  allowVideo: boolean;
  /** The larger room panel (with the hint) or the library's button row. */
  variant: 'room' | 'library';
}

export function UploadBox({ uploader, allowVideo, variant }: UploadBoxProps) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const { phase } = uploader;
  const busy = phase.kind !== 'idle' && phase.kind !== 'converting';

  const picker = (
    <>
      <button
        type="button"
        className="btn btn--primary"
        onClick={() => input.current?.click()}
        disabled={busy}
        data-testid="courseware-upload"
      >
        {t('courseware.upload.button')}
      </button>
      <input
        ref={input}
        type="file"
        hidden
        accept={acceptAttribute(allowVideo)}
        data-testid="courseware-file"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (file) void uploader.start(file);
        }}
      />
    </>
  );

  const steps =
    phase.kind === 'idle' ? null : (
      <div className="cw-steps stack" aria-live="polite" data-testid="courseware-uploading" data-phase={phase.kind}>
        <p className="cw-steps__name" title={phase.name}>
          {phase.name}
        </p>
        {phase.kind === 'hashing' ? (
          <Progress label={t('courseware.upload.hashing')} value={phase.percent} testId="cw-hash-progress" />
        ) : null}
        {phase.kind === 'checking' || phase.kind === 'registering' ? (
          <Progress label={t('courseware.upload.preparing')} value={null} testId="cw-wait-progress" />
        ) : null}
        {phase.kind === 'uploading' ? (
          <Progress label={t('courseware.upload.uploading')} value={phase.percent} testId="cw-upload-progress" />
        ) : null}
        {phase.kind === 'converting' ? (
          <Progress
            label={
              phase.total > 0
                ? t('courseware.upload.convertingPages', { done: phase.done, total: phase.total })
                : t('courseware.upload.converting')
            }
            value={phase.total > 0 ? Math.floor((phase.done / phase.total) * 100) : null}
            testId="cw-convert-progress"
          />
        ) : null}
        {variant === 'room' ? <p className="muted cw-steps__tip">{t('courseware.upload.tip')}</p> : null}
        {busy ? (
          <button type="button" className="cw-link" onClick={uploader.cancel} data-testid="courseware-cancel">
            {t('courseware.upload.cancel')}
          </button>
        ) : null}
      </div>
    );

  if (variant === 'library') {
    return (
      <div className="cw-library-upload">
        {picker}
        {steps}
      </div>
    );
  }
  return (
    <div className="cw-upload stack center" data-testid="courseware-default">
      {steps ?? (
        <>
          {picker}
          <p className="muted">{allowVideo ? t('courseware.upload.hintVideo') : t('courseware.upload.hint')}</p>
        </>
      )}
    </div>
  );
}
