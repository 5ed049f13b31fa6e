import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FEEDBACK_CAPTCHA_PATH } from '#core/contracts/api.ts';
import { FEEDBACK_MAX } from '#core/messaging/messaging.service.ts';
import { Button } from '#app/components/Button.tsx';
import { Dialog } from '#app/components/Dialog.tsx';
import { api, NETWORK_ERROR } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import { toast } from '#app/lib/toast.ts';

export function meta() {
  return [{ title: '板书 · 意见反馈 / Feedback' }];
}

/** docs/product/03-board-courseware-billing.md §5: white space collapses and line breaks stay; the server applies the same rule. */
const normalise = (s: string) =>
  s
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ *\n\s*/g, '\n')
    .trim();

/** Feedback (docs/product/03-board-courseware-billing.md §2.8): text, a captcha image (click to refresh), submit, success popup. */
export default function Feedback() {
  const { t } = useTranslation();
  const [content, setContent] = useState('');
  const [code, setCode] = useState('');
  const [stamp, setStamp] = useState(() => Date.now());
  const [done, setDone] = useState(false);
  const lock = useRequestLock();
  const text = normalise(content);
  const ready = text.length > 0 && code.length > 0;

  const refresh = () => {
    setStamp(Date.now());
    setCode('');
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!ready || [...text].length > FEEDBACK_MAX || code.length !== 4) return void toast.error(t('feedback.incomplete'));
    void lock.run(async () => {
      const envelope = await api('createFeedbackCaptcha', { content: text, code }, { quietNetworkError: true });
      if (envelope.code === '0') {
        setContent('');
        setCode('');
        setDone(true);
        setStamp(Date.now());
        return;
      }
      if (envelope.code === NETWORK_ERROR) toast.error(t('feedback.exception'));
      else if (envelope.code === '35001' || envelope.code === '35002') toast.error(t('feedback.wrongCaptcha'));
      else toast.error(envelope.code === '35003' ? envelope.msg : t('feedback.failed'));
      refresh();
    });
  };

  return (
    <section className="stack" aria-labelledby="feedback-title">
      <h1 id="feedback-title">{t('feedback.title')}</h1>
      <form className="card stack" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="feedback-content">{t('feedback.label')}</label>
          <textarea
            id="feedback-content"
            value={content}
            maxLength={FEEDBACK_MAX}
            placeholder={t('feedback.placeholder')}
            onChange={(e) => setContent(e.target.value)}
            aria-describedby="feedback-count"
          />
          <small id="feedback-count" className="muted">
            {t('feedback.count', { n: [...content].length, max: FEEDBACK_MAX })}
          </small>
        </div>
        <div className="field">
          <label htmlFor="feedback-code">{t('feedback.captcha')}</label>
          <div className="captcha">
            <input
              id="feedback-code"
              value={code}
              inputMode="numeric"
              autoComplete="off"
              maxLength={4}
              placeholder={t('feedback.captchaPlaceholder')}
              onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, 4))}
            />
            <button type="button" className="captcha__image" onClick={refresh} title={t('feedback.refresh')}>
              <img
                src={`${FEEDBACK_CAPTCHA_PATH}?t=${stamp}`}
                alt={t('feedback.captchaAlt')}
                width={120}
                height={40}
                data-testid="captcha"
              />
            </button>
          </div>
        </div>
        <div>
          <Button type="submit" disabled={!ready} loading={lock.busy}>
            {t('feedback.submit')}
          </Button>
        </div>
      </form>
      {done ? (
        <Dialog
          title={t('feedback.successTitle')}
          onClose={() => setDone(false)}
          actions={<Button onClick={() => setDone(false)}>{t('common.confirm')}</Button>}
        >
          <p>{t('feedback.successText')}</p>
        </Dialog>
      ) : null}
    </section>
  );
}
