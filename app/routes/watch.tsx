import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Route } from './+types/watch.ts';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { formatDuration, formatRecordSize } from '#app/recordings/format.ts';
import type { RecordingApiAnswers } from '#core/contracts/recording.ts';
import '#app/recordings/recordings.css';

export function meta() {
  return [{ title: '板书 · 观看录像 / Watch recording' }, { name: 'robots', content: 'noindex' }];
}

type Shared = RecordingApiAnswers['getSharedRecord'];
type View = { kind: 'loading' } | { kind: 'ok'; record: Shared } | { kind: 'invalid'; why: string } | { kind: 'failed' };

/**
 * /watch/:token: a recording somebody shared, for anyone with the link (no account). The token
 * is the permission; the server refuses a forged or expired one and the page says so.
 */
export default function Watch({ params }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [view, setView] = useState<View>({ kind: 'loading' });
  const token = params.token;

  useEffect(() => {
    const abort = new AbortController();
    void api('getSharedRecord', { token }, { quietNetworkError: true, signal: abort.signal }).then((answer) => {
      if (abort.signal.aborted) return;
      if (isOk(answer)) setView({ kind: 'ok', record: answer.data });
      else if (answer.code === NETWORK_ERROR) setView({ kind: 'failed' });
      // The server says which (forged, expired, deleted): its message, else the general one.
      else setView({ kind: 'invalid', why: answer.msg });
    });
    return () => abort.abort();
  }, [token]);

  return (
    <PageFrame>
      <div className="watch stack" data-testid="watch">
        {view.kind === 'loading' ? (
          <p className="muted" role="status" aria-busy="true">
            <span className="spinner" aria-hidden="true" /> {t('common.loading')}
          </p>
        ) : view.kind === 'ok' ? (
          <WatchRecord record={view.record} />
        ) : (
          <section className="card card--narrow stack center" data-testid="watch-invalid" role="alert">
            <h1>{view.kind === 'invalid' ? t('record.watch.invalidTitle') : t('record.library.failed')}</h1>
            {view.kind === 'invalid' && view.why ? <p data-testid="watch-invalid-why">{view.why}</p> : null}
            {view.kind === 'invalid' ? <p className="muted">{t('record.watch.invalidText')}</p> : null}
            <Link className="btn btn--primary" to="/">
              {t('record.watch.goHome')}
            </Link>
          </section>
        )}
      </div>
    </PageFrame>
  );
}

function WatchRecord({ record }: { record: Shared }) {
  const { t } = useTranslation();
  const size = formatRecordSize(record.fileSize);
  const duration = formatDuration(record.durationMs);
  const [broken, setBroken] = useState(false);
  return (
    <article className="stack" aria-labelledby="watch-title">
      <h1 id="watch-title" className="watch__title" data-testid="watch-name">
        {record.fileName}
      </h1>
      <video
        className="rec-video"
        src={record.fileUrl}
        controls
        playsInline
        preload="metadata"
        onError={() => setBroken(true)}
        aria-labelledby="watch-title"
        data-testid="watch-video"
      />
      {broken ? (
        <p className="rec-player__error" role="alert">
          {t('record.player.unplayable')}
        </p>
      ) : null}
      <dl className="watch__meta">
        <div>
          <dt>{t('record.watch.recordedAt')}</dt>
          <dd>
            <LocalTime at={record.createTime} />
          </dd>
        </div>
        {duration ? (
          <div>
            <dt>{t('record.watch.duration')}</dt>
            <dd>{duration}</dd>
          </div>
        ) : null}
        {size ? (
          <div>
            <dt>{t('record.watch.size')}</dt>
            <dd data-testid="watch-size">{size}</dd>
          </div>
        ) : null}
      </dl>
    </article>
  );
}
