import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import { gradeNetwork, probeNetwork, type NetworkGrade, type NetworkMeasure } from './network-check.ts';

/** Network check popover content (docs/product/01-account-and-lobby.md §2): progress, then excellent, poor or very poor. */
export function NetworkCheck({ mediaUrl }: { mediaUrl: string }) {
  const { t } = useTranslation();
  const [progress, setProgress] = useState<number | null>(null);
  const [result, setResult] = useState<{ grade: NetworkGrade; m: NetworkMeasure } | null>(null);
  const [failed, setFailed] = useState(false);
  const run = async () => {
    setResult(null);
    setFailed(false);
    setProgress(0);
    try {
      const m = await probeNetwork(mediaUrl, setProgress);
      setResult({ grade: gradeNetwork(m), m });
    } catch {
      setFailed(true);
    } finally {
      setProgress(null);
    }
  };
  return (
    <section className="card device-check stack" aria-labelledby="net-title" data-testid="network-check">
      <h2 id="net-title">{t('network.title')}</h2>
      {progress !== null ? (
        <progress max={1} value={progress} aria-label={t('network.running')} data-testid="network-progress" />
      ) : (
        <Button onClick={() => void run()} data-testid="network-start">
          {result ? t('network.again') : t('network.start')}
        </Button>
      )}
      {result ? (
        <p data-testid="network-result" data-grade={result.grade} data-udp={result.m.udp === null ? 'unknown' : String(result.m.udp)}>
          <strong>{t(`network.grade.${result.grade}`)}</strong>{' '}
          <span className="muted">
            {t('network.details', {
              rtt: Number.isFinite(result.m.rttMs) ? Math.round(result.m.rttMs) : '-',
              loss: Math.round(result.m.loss * 100),
              down: Math.round(result.m.downKbps),
              up: Math.round(result.m.upKbps),
            })}
          </span>
        </p>
      ) : null}
      {result?.m.udp === false ? (
        <p className="form-error" role="alert" data-testid="network-no-udp">
          {t('network.noUdp')}
        </p>
      ) : null}
      {failed ? (
        <p className="form-error" role="alert" data-testid="network-result" data-grade="veryPoor">
          {t('network.grade.veryPoor')}
        </p>
      ) : null}
    </section>
  );
}
