import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import { copyText } from '#app/lib/clipboard.ts';
import { toast } from '#app/lib/toast.ts';

export function InviteLink({ url }: { url: string }) {
  const { t } = useTranslation();
  const id = useId();
  const copy = async () => {
    if (await copyText(url)) toast.success(t('common.copied'));
    else toast.error(t('common.copyFailed'));
  };
  return (
    <div className="invite">
      <label htmlFor={id}>{t('classroom.invite')}</label>
      <div className="field__row">
        <input id={id} readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
        <Button variant="secondary" onClick={() => void copy()}>
          {t('classroom.copyInvite')}
        </Button>
      </div>
    </div>
  );
}
