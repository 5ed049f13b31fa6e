import { useTranslation } from 'react-i18next';
import type { VipUserInfo } from '#core/contracts/api.ts';
import { LocalTime } from '#app/components/LocalTime.tsx';

/** 'Member until <date>' or 'not a member': one line shared by the personal and payment pages. */
export function VipUntil({ vip, now }: { vip: VipUserInfo | null; now: number }) {
  const { t } = useTranslation();
  if (!vip || vip.vipRoomTime <= now) return <>{t('personal.notVip')}</>;
  return (
    <>
      {t('personal.vipUntil', { date: '' })}
      <LocalTime at={vip.vipRoomTime} dateOnly />
    </>
  );
}
