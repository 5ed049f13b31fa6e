import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '#app/components/Dialog.tsx';
import { CUSTOM_PLATFORM, LIVE_START_DEBOUNCE_MS } from '#core/contracts/streaming.ts';
import type { LiveCallAnswer, LivePlatformsAnswer } from '#app/classroom/room-channel-types.ts';
import { useLiveText } from './useLiveText.ts';
import { debouncedCall } from './debounce.ts';
import { fieldMessageOfCode, liveFieldProblem } from './live-format.ts';

/** A text field can be shown as dots by CSS (-webkit-text-security: Chromium, Safari, recent Firefox). */
function canMaskText(): boolean {
  return typeof CSS !== 'undefined' && typeof CSS.supports === 'function' && CSS.supports('-webkit-text-security', 'disc');
}

export interface LiveKeyDialogProps {
  /** The platform chosen last time (a restart keeps it); '' for the first platform offered. */
  platform: string;
  loadPlatforms: () => Promise<LivePlatformsAnswer>;
  onStart: (platform: string, pushStreamUrl: string) => Promise<LiveCallAnswer>;
  /** The start was taken: the push is starting on `platform`. */
  onStarted: (platform: string) => void;
  /** The server refused the start (not a problem of the field): the failure dialog. */
  onFailed: (platform: string, message: string) => void;
  onClose: () => void;
}

/**
 * The 'enter the key' dialog (issue 14): the platform, then the stream key (masked, with a show
 * toggle) or, for 'custom', the full rtmp(s):// address; checked here as the server will, with the
 * message under the field; Enter starts, Esc closes. The key lives only in this dialog's state: it
 * is sent once and gone when the dialog closes.
 */
export function LiveKeyDialog({ platform: initial, loadPlatforms, onStart, onStarted, onFailed, onClose }: LiveKeyDialogProps) {
  const t = useLiveText();
  const { t: tc } = useTranslation();
  const formId = useId();
  const fieldId = useId();
  const hintId = useId();
  const errorId = useId();
  const field = useRef<HTMLInputElement>(null);
  const [options, setOptions] = useState<{ platforms: string[]; custom: boolean } | null>(null);
  const [loadError, setLoadError] = useState('');
  const [platform, setPlatform] = useState(initial);
  const [value, setValue] = useState('');
  const [reveal, setReveal] = useState(false);
  /** The field's problem: a message key of live.* or the server's own words. */
  const [error, setError] = useState<{ key: ReturnType<typeof liveFieldProblem> } | { text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const start = useMemo(() => debouncedCall(LIVE_START_DEBOUNCE_MS, setBusy), []);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
      start.cancel();
    };
  }, [start]);

  useEffect(() => {
    let stale = false;
    void loadPlatforms().then((answer) => {
      if (stale) return;
      if (!answer.ok) {
        setLoadError(answer.msg);
        return;
      }
      const offered = [...answer.platforms, ...(answer.custom ? [CUSTOM_PLATFORM] : [])];
      setOptions({ platforms: answer.platforms, custom: answer.custom });
      setPlatform((chosen) => (offered.includes(chosen) ? chosen : (offered[0] ?? '')));
    });
    return () => {
      stale = true;
    };
  }, [loadPlatforms]);

  // Focus in the field once the modal is open (the Dialog's effect runs before this one) and on a new platform.
  useEffect(() => {
    field.current?.focus();
  }, [platform, options]);

  const custom = platform === CUSTOM_PLATFORM;
  const cssMask = canMaskText();
  const offered = options ? [...options.platforms, ...(options.custom ? [CUSTOM_PLATFORM] : [])] : [];
  const ready = options !== null && offered.includes(platform);
  const message = error === null ? '' : 'text' in error ? error.text : error.key ? t(error.key) : '';

  const submit = () => {
    if (!ready || busy) return;
    const problem = liveFieldProblem(platform, value);
    if (problem) {
      setError({ key: problem });
      field.current?.focus();
      return;
    }
    const chosen = platform;
    const sent = value.trim();
    start.trigger(async () => {
      const answer = await onStart(chosen, sent);
      if (!alive.current) return;
      if (answer.ok) {
        setValue('');
        onStarted(chosen);
        return;
      }
      if (answer.code === 'busy') return;
      const inline = fieldMessageOfCode(answer.code);
      if (inline) {
        setError({ text: answer.msg || t(inline) });
        field.current?.focus();
        return;
      }
      setValue('');
      onFailed(chosen, answer.msg);
    });
  };

  return (
    <Dialog title={t('key.title')} onClose={onClose} className="live-dialog">
      <form
        id={formId}
        className="live-dialog__content"
        data-testid="live-key-dialog"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <div className="field">
          <label htmlFor={`${fieldId}-platform`}>{t('key.platform')}</label>
          <select
            id={`${fieldId}-platform`}
            value={ready ? platform : ''}
            disabled={!options || offered.length === 0 || busy}
            onChange={(event) => {
              setPlatform(event.target.value);
              setValue('');
              setError(null);
              setReveal(false);
            }}
            data-testid="live-platform"
          >
            {!options ? <option value="">{loadError || t('key.loadingPlatforms')}</option> : null}
            {offered.map((p) => (
              <option key={p} value={p}>
                {p === CUSTOM_PLATFORM ? t('key.custom') : p}
              </option>
            ))}
          </select>
          {loadError ? <p className="field__error">{loadError}</p> : null}
          {options && offered.length === 0 ? <p className="field__error">{t('key.noPlatforms')}</p> : null}
        </div>
        <div className="field">
          <label htmlFor={fieldId}>{custom ? t('key.address') : t('key.key')}</label>
          <div className="field__row">
            <input
              ref={field}
              id={fieldId}
              // A key is masked; an address is a URL. Browsers must not remember either: where CSS can
              // mask a text field, it is one (a password field makes password managers offer to keep the key).
              type={custom ? 'url' : reveal || cssMask ? 'text' : 'password'}
              className={!custom && !reveal && cssMask ? 'live-dialog__masked' : undefined}
              data-1p-ignore=""
              data-lpignore="true"
              inputMode={custom ? 'url' : 'text'}
              autoComplete="off"
              autoCapitalize="off"
              autoCorrect="off"
              spellCheck={false}
              maxLength={custom ? 1024 : 64}
              value={value}
              placeholder={custom ? 'rtmp://' : 'abcd-efgh-ijkl-mnop'}
              aria-invalid={message ? true : undefined}
              aria-describedby={message ? errorId : hintId}
              disabled={busy}
              onChange={(event) => {
                setValue(event.target.value);
                if (error) setError(null);
              }}
              data-testid="live-key"
            />
            {custom ? null : (
              <button
                type="button"
                className="btn btn--ghost live-dialog__reveal"
                aria-pressed={reveal}
                aria-label={reveal ? t('key.hideKey') : t('key.showKey')}
                onClick={() => setReveal((r) => !r)}
                data-testid="live-key-reveal"
              >
                {reveal ? t('key.hide') : t('key.show')}
              </button>
            )}
          </div>
          {message ? (
            <p id={errorId} className="field__error" role="alert" data-testid="live-key-error">
              {message}
            </p>
          ) : (
            <p id={hintId} className="live-dialog__hint">
              {custom ? t('key.addressHint') : t('key.keyHint')}
            </p>
          )}
        </div>
        <div className="dialog__actions">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {tc('common.cancel')}
          </button>
          <button
            type="submit"
            className="btn btn--primary"
            disabled={!ready || busy}
            aria-busy={busy || undefined}
            data-testid="live-start"
          >
            {busy ? <span className="spinner" aria-hidden="true" /> : null}
            {t('key.start')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
