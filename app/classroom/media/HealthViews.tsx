/**
 * The classroom's media health views (ADR 101): the prompt that starts playback the browser
 * blocked, the device-exception view (what happened, what to do, retry), and the notice that a
 * microphone sends no sound.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { MicOff, Volume2 } from 'lucide-react';
import { Button } from '#app/components/Button.tsx';
import { Dialog } from '#app/components/Dialog.tsx';
import { issueActions, type DeviceIssue } from './device-issue.ts';
import { playback } from './playback.ts';
import './media-health.css';

/** How many elements wait for a gesture (0: no prompt). */
export function useBlockedPlayback(): number {
  return useSyncExternalStore(playback.subscribe, playback.getSnapshot, () => 0);
}

/**
 * "Click to start sound and video": shown while the browser refuses to play something. A small
 * modal (the class cannot be heard until it is answered; the focus is on its button, so Enter or
 * Space answers it): the button, the close button, Escape, or any click or key on the page (the
 * next user gesture) starts every refused element again.
 */
export function PlaybackPrompt() {
  const { t } = useTranslation();
  const blocked = useBlockedPlayback();
  useEffect(() => {
    if (blocked === 0) return;
    // Any gesture on the page will do (docs/product/02-live-classroom.md §8: resumes on the next click).
    const resume = () => playback.resumeAll();
    window.addEventListener('pointerdown', resume, true);
    window.addEventListener('keydown', resume, true);
    return () => {
      window.removeEventListener('pointerdown', resume, true);
      window.removeEventListener('keydown', resume, true);
    };
  }, [blocked]);
  if (blocked === 0) return null;
  return (
    <Dialog title={t('mediaHealth.playback.title')} onClose={() => playback.resumeAll()} testId="playback-prompt" className="play-prompt">
      <div className="play-prompt__body">
        <Volume2 size={28} aria-hidden="true" className="play-prompt__icon" />
        <p>{t('mediaHealth.playback.text')}</p>
      </div>
      <Button onClick={() => playback.resumeAll()} data-testid="playback-start" data-autofocus block>
        {t('mediaHealth.playback.button')}
      </Button>
    </Dialog>
  );
}

/** The device-exception view (docs/product/02-live-classroom.md §4): what happened, what to do, retry. */
export function DeviceIssueView({
  issue,
  onRetry,
  onClose,
  onChooseDevice,
}: {
  issue: DeviceIssue;
  onRetry: () => void;
  onClose: () => void;
  onChooseDevice: () => void;
}) {
  const { t } = useTranslation();
  const device = t(`mediaHealth.device.source.${issue.source}`);
  const actions = issueActions(issue.problem);
  return (
    <Dialog
      title={t('mediaHealth.device.heading')}
      onClose={onClose}
      testId="device-issue"
      className="device-issue"
      actions={
        <>
          <Button variant="ghost" onClick={onClose} data-testid="device-issue-close">
            {t('mediaHealth.device.close')}
          </Button>
          {actions.chooseDevice ? (
            <Button variant="secondary" onClick={onChooseDevice} data-testid="device-issue-choose">
              {t('mediaHealth.device.choose')}
            </Button>
          ) : null}
          <Button onClick={onRetry} data-testid="device-issue-retry" data-autofocus>
            {t('mediaHealth.device.retry')}
          </Button>
        </>
      }
    >
      <div className="device-issue__body" data-problem={issue.problem} data-source={issue.source}>
        <h3 className="device-issue__label">{t('mediaHealth.device.what')}</h3>
        <p className="device-issue__title" data-testid="device-issue-title">
          {t(`mediaHealth.device.title.${issue.problem}`, { device })}
        </p>
        <h3 className="device-issue__label">{t('mediaHealth.device.todo')}</h3>
        <p>{t(`mediaHealth.device.text.${issue.problem}`, { device })}</p>
        {actions.permissionHelp ? (
          <div className="device-issue__help" data-testid="permission-help">
            <p className="device-issue__label">{t('mediaHealth.device.helpTitle')}</p>
            <ol>
              <li>{t('mediaHealth.device.helpSteps.one')}</li>
              <li>{t('mediaHealth.device.helpSteps.two')}</li>
              <li>{t('mediaHealth.device.helpSteps.three')}</li>
            </ol>
          </div>
        ) : null}
      </div>
    </Dialog>
  );
}

/** My microphone reached the node with nothing for 10 s (the node's `trackSilent`): say so, name the device, offer a retry. */
export function SilentMicNotice({ deviceLabel, onRetry }: { deviceLabel: string; onRetry: () => void }) {
  const { t } = useTranslation();
  const [dismissed, setDismissed] = useState(false);
  if (dismissed) return null;
  return (
    <section className="silent-mic" role="alert" aria-labelledby="silent-mic-title" data-testid="silent-mic">
      <MicOff size={20} aria-hidden="true" className="silent-mic__icon" />
      <div className="silent-mic__text">
        <strong id="silent-mic-title">{t('mediaHealth.silent.me')}</strong>
        <span>{t('mediaHealth.silent.meHint', { device: deviceLabel || t('mediaHealth.silent.thisMic') })}</span>
      </div>
      <div className="silent-mic__actions">
        <Button variant="ghost" onClick={() => setDismissed(true)}>
          {t('mediaHealth.silent.dismiss')}
        </Button>
        <Button onClick={onRetry} data-testid="silent-mic-retry">
          {t('mediaHealth.silent.retry')}
        </Button>
      </div>
    </section>
  );
}
