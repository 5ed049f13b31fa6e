/** The studio's record controls under the stage: start, pause and resume, stop, and the time recorded. */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatLiveClock } from '#app/streaming/live-format.ts';
import { StudioIcon } from './icons.tsx';
import type { SessionState } from './useTakeSession.ts';

export function RecordBar(props: {
  state: SessionState;
  elapsedMs: number;
  ready: boolean;
  onStart: () => void;
  onPause: () => void;
  onResume: () => void;
  onStop: () => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const { state } = props;
  const busy = state === 'starting' || state === 'stopping';
  return (
    <section className="studio-bar" aria-label={t('studio.record.bar')}>
      <div className="studio-bar__view">{props.children}</div>
      <div className="studio-bar__rec">
        <span className={`studio-rec studio-rec--${state}`} data-testid="studio-rec" role="status">
          {state === 'recording' ? (
            <>
              <span className="studio-rec__dot" aria-hidden="true" />
              <span aria-hidden="true">{t('studio.record.rec')}</span>
              <span className="visually-hidden">{t('studio.record.recording')}</span>
            </>
          ) : state === 'paused' ? (
            t('studio.record.paused')
          ) : busy ? (
            <span className="spinner" aria-hidden="true" />
          ) : null}
        </span>
        <time
          className="studio-elapsed"
          data-testid="studio-elapsed"
          aria-label={t('studio.record.elapsed')}
          dateTime={`PT${Math.floor(props.elapsedMs / 1000)}S`}
        >
          {formatLiveClock(props.elapsedMs)}
        </time>
        {state === 'idle' || state === 'starting' ? (
          <button
            type="button"
            className="studio-rec-btn studio-rec-btn--start"
            onClick={props.onStart}
            disabled={!props.ready || busy}
            data-testid="studio-record-start"
          >
            <span className="studio-rec-btn__dot" aria-hidden="true" />
            {t('studio.record.start')}
          </button>
        ) : (
          <>
            {state === 'paused' ? (
              <button type="button" className="studio-rec-btn" onClick={props.onResume} data-testid="studio-record-resume">
                <StudioIcon name="resume" size={18} />
                {t('studio.record.resume')}
              </button>
            ) : (
              <button type="button" className="studio-rec-btn" onClick={props.onPause} disabled={busy} data-testid="studio-record-pause">
                <StudioIcon name="pause" size={18} />
                {t('studio.record.pause')}
              </button>
            )}
            <button
              type="button"
              className="studio-rec-btn studio-rec-btn--stop"
              onClick={props.onStop}
              disabled={busy}
              data-testid="studio-record-stop"
            >
              <StudioIcon name="stop" size={18} />
              {t('studio.record.stop')}
            </button>
          </>
        )}
      </div>
    </section>
  );
}
