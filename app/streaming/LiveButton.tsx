import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '#app/components/Dialog.tsx';
import { toast } from '#app/lib/toast.ts';
import { CUSTOM_PLATFORM, LIVE_END_DEBOUNCE_MS, type LiveState } from '#core/contracts/streaming.ts';
import type { LiveCallAnswer, LivePlatformsAnswer } from '#app/classroom/room-channel-types.ts';
import type { LiveInfo } from '#app/classroom/roomState.ts';
import { debouncedCall } from './debounce.ts';
import { LiveKeyDialog } from './LiveKeyDialog.tsx';
import { failureMessage, formatKbps, formatLiveClock, liveButtonView } from './live-format.ts';
import type { LiveText } from './live-text.ts';
import { useLiveText } from './useLiveText.ts';
import { useNow } from '#app/lib/use-now.ts';
import './live.css';

export interface LiveButtonProps {
  liveState: LiveState;
  live: LiveInfo;
  /** The room channel is down: nothing can be started. */
  offline: boolean;
  onStart: (platform: string, pushStreamUrl: string) => Promise<LiveCallAnswer>;
  onEnd: () => Promise<boolean>;
  loadPlatforms: () => Promise<LivePlatformsAnswer>;
}

type Open = 'key' | 'loading' | 'progress' | 'confirm' | 'failure' | null;

export function platformName(platform: string, t: LiveText): string {
  return platform === CUSTOM_PLATFORM ? t('key.custom') : platform;
}

/**
 * The creator's live-streaming button (issue 14) and its dialogs: idle it opens 'enter the key';
 * starting, the loading dialog; live (red, with the time), the progress dialog, whose End asks to
 * confirm. A push that fails on its own (a roomLive event with liveState '0' and a failure) or a
 * refused start opens the failure dialog, whose Restart goes back to the key with the platform kept.
 */
export function LiveButton({ liveState, live, offline, onStart, onEnd, loadPlatforms }: LiveButtonProps) {
  const t = useLiveText();
  const { t: tc } = useTranslation();
  const [open, setOpen] = useState<Open>(null);
  /** The platform last chosen (kept for a restart; never the key). */
  const [platform, setPlatform] = useState('');
  const [failure, setFailure] = useState('');
  const now = useNow(liveState === '1');
  const view = liveButtonView(liveState, live.since, now, offline);
  const shownPlatform = live.platform || platform;

  // The dialogs follow the state (adjusted while rendering, not in an effect): loading closes once
  // live; progress and confirm close once idle; a push that ended on its own says why, once per
  // task and reason.
  const failureKey = liveState === '0' && live.failure ? `${live.taskId}:${live.failure}` : '';
  const [seen, setSeen] = useState({ liveState, failureKey });
  if (seen.liveState !== liveState || seen.failureKey !== failureKey) {
    setSeen({ liveState, failureKey });
    if (failureKey && failureKey !== seen.failureKey) {
      if (live.platform) setPlatform(live.platform);
      setFailure(t(failureMessage(live.failure)));
      setOpen('failure');
    } else if (open === 'loading' && liveState !== '2') setOpen(null);
    else if ((open === 'progress' || open === 'confirm') && liveState === '0') setOpen(null);
  }
  // A start answered after the push was already live (roomLive came first) shows no loading dialog.
  const shown: Open = (open === 'loading' && liveState !== '2') || (open === 'progress' && liveState !== '1') ? null : open;

  const [ending, setEnding] = useState(false);
  const end = useMemo(() => debouncedCall(LIVE_END_DEBOUNCE_MS, setEnding), []);
  useEffect(() => () => end.cancel(), [end]);

  const click = () => {
    if (view.kind === 'start') setOpen('key');
    else if (view.kind === 'starting') setOpen('loading');
    else setOpen('progress');
  };
  const close = useCallback(() => setOpen(null), []);

  const name =
    view.kind === 'start'
      ? t('button.startName')
      : view.kind === 'starting'
        ? t('button.startingName')
        : t('button.liveName', { time: view.elapsed });
  return (
    <>
      <button
        type="button"
        className={`btn btn--${view.kind === 'live' ? 'danger' : 'secondary'} live-btn live-btn--${view.kind}`}
        disabled={view.disabled}
        aria-haspopup="dialog"
        aria-busy={view.kind === 'starting' || undefined}
        aria-label={name}
        title={name}
        onClick={click}
        data-testid="live-button"
        data-live-state={liveState}
      >
        {view.kind === 'starting' ? <span className="spinner" aria-hidden="true" /> : <span className="live-btn__dot" aria-hidden="true" />}
        {/* Live: the word over the time, so the red button is no wider than the time. */}
        {view.kind === 'live' ? (
          <span className="live-btn__stack" aria-hidden="true">
            <span className="live-btn__word">{t('button.live')}</span>
            <time className="live-btn__time" data-testid="live-elapsed">
              {view.elapsed}
            </time>
          </span>
        ) : (
          <span className="live-btn__word" aria-hidden="true">
            {t('button.start')}
          </span>
        )}
      </button>

      {shown === 'key' ? (
        <LiveKeyDialog
          platform={platform}
          loadPlatforms={loadPlatforms}
          onStart={onStart}
          onStarted={(p) => {
            setPlatform(p);
            setOpen('loading');
          }}
          onFailed={(p, message) => {
            setPlatform(p);
            setFailure(message || t('failure.failed'));
            setOpen('failure');
          }}
          onClose={close}
        />
      ) : null}

      {shown === 'loading' ? (
        <Dialog title={t('loading.title')} onClose={close} className="live-dialog">
          <div className="live-dialog__content" data-testid="live-loading" aria-busy="true">
            <p className="live-dialog__status">
              <span className="spinner" aria-hidden="true" />
              <span>{t('loading.text', { platform: platformName(shownPlatform, t) })}</span>
            </p>
            <p className="live-dialog__hint">{t('loading.hint')}</p>
            <div className="dialog__actions">
              <button type="button" className="btn btn--ghost" onClick={() => setOpen('confirm')} data-testid="live-end">
                {t('progress.end')}
              </button>
              <button type="button" className="btn btn--primary" onClick={close} autoFocus>
                {tc('common.close')}
              </button>
            </div>
          </div>
        </Dialog>
      ) : null}

      {shown === 'progress' ? (
        <LiveProgress live={live} platform={platformName(shownPlatform, t)} onEnd={() => setOpen('confirm')} onClose={close} />
      ) : null}

      {shown === 'confirm' ? (
        <Dialog
          title={t('confirm.title')}
          onClose={() => {
            end.cancel();
            close();
          }}
          className="live-dialog"
        >
          <div className="live-dialog__content" data-testid="live-confirm-end">
            <p>{t('confirm.text')}</p>
            <div className="dialog__actions">
              <button
                type="button"
                className="btn btn--ghost"
                onClick={() => {
                  end.cancel();
                  setOpen(liveState === '1' ? 'progress' : liveState === '2' ? 'loading' : null);
                }}
                autoFocus
              >
                {tc('common.cancel')}
              </button>
              <button
                type="button"
                className="btn btn--danger"
                disabled={ending}
                aria-busy={ending || undefined}
                onClick={() =>
                  end.trigger(async () => {
                    if (!(await onEnd())) return;
                    setOpen(null);
                    toast.success(t('ended'));
                  })
                }
                data-testid="live-confirm-end-ok"
              >
                {ending ? <span className="spinner" aria-hidden="true" /> : null}
                {t('confirm.confirm')}
              </button>
            </div>
          </div>
        </Dialog>
      ) : null}

      {shown === 'failure' ? (
        <Dialog title={t('failure.title')} onClose={close} className="live-dialog">
          <div className="live-dialog__content" data-testid="live-failure">
            <p role="alert">{failure}</p>
            <div className="dialog__actions">
              <button type="button" className="btn btn--ghost" onClick={close}>
                {tc('common.close')}
              </button>
              <button
                type="button"
                className="btn btn--primary"
                disabled={offline || liveState !== '0'}
                onClick={() => setOpen('key')}
                autoFocus
                data-testid="live-restart"
              >
                {t('failure.restart')}
              </button>
            </div>
          </div>
        </Dialog>
      ) : null}
    </>
  );
}

/** While live: the platform, the time, the bitrate, 'reconnecting' when the platform was lost, and End. */
function LiveProgress({ live, platform, onEnd, onClose }: { live: LiveInfo; platform: string; onEnd: () => void; onClose: () => void }) {
  const t = useLiveText();
  const { t: tc } = useTranslation();
  const now = useNow(true);
  const elapsed = formatLiveClock(live.since === null ? 0 : now - live.since);
  return (
    <Dialog title={t('progress.title')} onClose={onClose} className="live-dialog">
      <div className="live-dialog__content" data-testid="live-progress">
        {live.reconnecting ? (
          <p className="live-dialog__reconnecting" role="status" data-testid="live-reconnecting">
            <span className="spinner" aria-hidden="true" />
            {t('progress.reconnecting')}
          </p>
        ) : null}
        <dl className="live-dialog__facts">
          <dt>{t('progress.platform')}</dt>
          <dd data-testid="live-platform-name">{platform}</dd>
          <dt>{t('progress.elapsed')}</dt>
          <dd>
            <time className="live-btn__time" data-testid="live-progress-elapsed">
              {elapsed}
            </time>
          </dd>
          <dt>{t('progress.bitrate')}</dt>
          <dd data-testid="live-bitrate">{live.reconnecting ? t('progress.unknown') : (formatKbps(live.kbps) ?? t('progress.unknown'))}</dd>
        </dl>
        <div className="dialog__actions">
          <button type="button" className="btn btn--danger" onClick={onEnd} data-testid="live-end">
            {t('progress.end')}
          </button>
          <button type="button" className="btn btn--primary" onClick={onClose} autoFocus>
            {tc('common.close')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
