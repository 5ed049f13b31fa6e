import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { Route } from './+types/login.ts';
import { Button } from '#app/components/Button.tsx';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { useLang } from '#app/components/lang.tsx';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { routeGuard } from '#app/lib/guard.server.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { safeRedirect } from '#app/lib/names.ts';
import { useDownloadAnchor } from '#app/lib/download-anchor.ts';
import { USER_INFO_KEY, safeSet } from '#app/lib/storage.ts';
import { toastScope } from '#app/lib/toast.ts';
import { JoinByNumber } from '#app/lobby/JoinByNumber.tsx';

export const middleware: Route.MiddlewareFunction[] = [routeGuard];

export function loader() {
  return null;
}

export function meta() {
  return [{ title: '板书 · 登录 / Sign in' }];
}

const RESEND_SECONDS = 60;
/** Send-code failures the spec names; any other non-zero code shows the server's message. */
const SEND_CODE_ERRORS = new Set(['42003', '42010', '42014', '42009']);

export default function Login() {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  // `/#download` without a session lands here (the redirect keeps the fragment): on to /home#download.
  useDownloadAnchor(safeRedirect(params.get('redirect')) === '/');
  const [mobile, setMobile] = useState('');
  const [code, setCode] = useState('');
  const [agreed, setAgreed] = useState(true);
  const [sending, setSending] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [countdown, setCountdown] = useState(0);
  const codeRef = useRef<HTMLInputElement>(null);
  // This page's toasts ('Code sent', the form's errors) end with the page (ADR 098).
  const [toast] = useState(toastScope);
  useEffect(() => () => toast.dismissAll(), [toast]);

  useEffect(() => {
    if (countdown <= 0) return;
    const timer = setTimeout(() => setCountdown((n) => n - 1), 1000);
    return () => clearTimeout(timer);
  }, [countdown]);

  const sendCode = async () => {
    if (sending || countdown > 0) return;
    if (mobile.length !== 11) {
      toast.error(t('login.invalidPhone'));
      return;
    }
    setSending(true);
    const envelope = await api('sendPhoneCode', { mobile, area: '86' }, { networkText: 'login.codeSendFailed', onRetry: sendCode });
    setSending(false);
    if (envelope.code === '0') {
      toast.success(t('login.codeSent'));
      setCountdown(RESEND_SECONDS);
      codeRef.current?.focus();
    } else if (envelope.code === NETWORK_ERROR) {
      // the 'network exception' message with its retry (ADR 102)
    } else if (SEND_CODE_ERRORS.has(envelope.code)) {
      toast.error(codeMessage(envelope.code, lang) ?? envelope.msg);
    } else {
      toast.error(envelope.msg || t('login.codeSendError'));
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting) return;
    if (mobile.length !== 11) return void toast.error(t('login.invalidPhone'));
    if (code.length !== 6) return void toast.error(t('login.invalidCode'));
    if (!agreed) return void toast.error(t('login.mustAgree'));
    setSubmitting(true);
    const form = event.currentTarget as HTMLFormElement;
    // RETRY of the 'network exception' message submits the form again (ADR 102).
    const envelope = await api('loginUser', { mobile, code, userType: '1' }, { onRetry: () => form.requestSubmit() });
    if (!isOk(envelope)) {
      setSubmitting(false);
      if (envelope.code !== NETWORK_ERROR) toast.error(t('login.failed'));
      return;
    }
    const { userToken: _token, ...stored } = envelope.data.userInfo;
    void _token; // the session is the httpOnly cookie; the token never goes to storage
    safeSet('local', USER_INFO_KEY, JSON.stringify(stored));
    // 'Code sent' may be under 1.5 s old (an SMS code the phone filled in): it must not follow into the lobby.
    toast.dismissAll();
    await navigate(safeRedirect(params.get('redirect')), { replace: true });
  };

  const codeLabel = countdown > 0 ? t('login.resendIn', { n: countdown }) : t('login.getCode');

  return (
    <PageFrame className="frame--login">
      <section className="card card--narrow login">
        <h1 className="login__title">{t('login.title')}</h1>
        <p className="muted">{t('login.subtitle')}</p>
        <form className="stack" onSubmit={(e) => void submit(e)} noValidate>
          <div className="field">
            <label htmlFor="mobile">{t('login.phone')}</label>
            <input
              id="mobile"
              name="mobile"
              type="tel"
              inputMode="numeric"
              autoComplete="tel-national"
              maxLength={11}
              placeholder={t('login.phonePlaceholder')}
              value={mobile}
              onChange={(e) => setMobile(e.target.value.replace(/\D/g, '').slice(0, 11))}
              autoFocus
            />
          </div>
          <div className="field">
            <label htmlFor="code">{t('login.code')}</label>
            <div className="field__row">
              <input
                ref={codeRef}
                id="code"
                name="code"
                type="text"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                placeholder={t('login.codePlaceholder')}
                value={code}
                onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, 6))}
              />
              <Button
                variant="secondary"
                className="login__code-btn"
                onClick={() => void sendCode()}
                loading={sending}
                disabled={countdown > 0}
                aria-live="polite"
              >
                {codeLabel}
              </Button>
            </div>
          </div>
          <div className="check">
            <input id="terms" type="checkbox" checked={agreed} onChange={(e) => setAgreed(e.target.checked)} />
            <label htmlFor="terms">
              {t('login.agreePrefix')}{' '}
              <Link to="/download/pc#terms" target="_blank" rel="noopener">
                {t('login.terms')}
              </Link>
            </label>
          </div>
          <Button type="submit" block loading={submitting}>
            {t('login.submit')}
          </Button>
        </form>
        <p className="center login__links">
          <Link to="/createDemo" data-testid="login-try-demo">
            {t('demo.tryDemo')}
          </Link>
          <Link to="/home" data-testid="login-about">
            {t('journeys.login.about')}
          </Link>
        </p>
      </section>
      {/* A student reached the teacher sign-in: their own way in, without an account (ADR 098). */}
      <section className="card card--narrow join-panel join-panel--login" aria-labelledby="login-join-title">
        <h2 id="login-join-title">{t('journeys.login.student')}</h2>
        <JoinByNumber name="login" />
      </section>
    </PageFrame>
  );
}
