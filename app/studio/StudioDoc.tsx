/**
 * The studio's document view: a PDF chosen from the teacher's disk (application/pdf only), drawn
 * by pdf.js into a canvas on the stage (the compositor records that canvas), with the open button
 * and page up / down ('n / N') in the bar under the stage.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import { toast } from '#app/lib/toast.ts';
import { StudioIcon } from './icons.tsx';
import { StudioPager } from './StudioPager.tsx';
import { isPdfFile, openPdf, PDF_TYPE, type PdfDoc } from './pdf.ts';

/** Pages are drawn this large at most (device pixels): sharp in the 1280x720 frame and on a 2x screen. */
const RENDER_MAX = { width: 1920, height: 1080 } as const;

export interface StudioDoc {
  surface: ReactNode;
  controls: ReactNode;
}

export function useStudioDoc(): StudioDoc {
  const { t } = useTranslation();
  const inputRef = useRef<HTMLInputElement>(null);
  // A state, not a ref: the canvas is new each time the document view is shown again, and is drawn then.
  const [canvas, setCanvas] = useState<HTMLCanvasElement | null>(null);
  const [doc, setDoc] = useState<{ pdf: PdfDoc; name: string } | null>(null);
  const [pageNo, setPageNo] = useState(1);
  const [loading, setLoading] = useState(false);
  const [drawn, setDrawn] = useState(false);

  // The document is let go when another comes or the studio closes.
  useEffect(() => () => doc?.pdf.destroy(), [doc]);

  useEffect(() => {
    if (!doc || !canvas) return;
    let current = true;
    doc.pdf.render(pageNo, canvas, RENDER_MAX.width, RENDER_MAX.height).then(
      () => current && setDrawn(true),
      (err: unknown) => {
        const name = typeof err === 'object' && err !== null && 'name' in err ? err.name : '';
        if (current && name !== 'RenderingCancelledException') toast.error(t('studio.doc.parseFailed'));
      },
    );
    return () => {
      current = false;
    };
  }, [doc, canvas, pageNo, t]);

  const choose = async (file: File) => {
    if (!isPdfFile(file)) {
      toast.error(t('studio.doc.notPdf'));
      return;
    }
    setLoading(true);
    try {
      const pdf = await openPdf(await file.arrayBuffer());
      setDrawn(false);
      setPageNo(1);
      setDoc({ pdf, name: file.name.replace(/\.pdf$/i, '') });
    } catch {
      toast.error(t('studio.doc.parseFailed'));
    } finally {
      setLoading(false);
    }
  };

  const pages = doc?.pdf.pages ?? 0;
  const go = (n: number) => setPageNo(Math.max(1, Math.min(pages, n)));
  const pick = () => inputRef.current?.click();

  const surface = (
    <div className="studio-doc" data-testid="studio-doc" data-page={doc ? pageNo : 0} data-drawn={drawn ? '1' : '0'}>
      {doc ? (
        <canvas
          ref={setCanvas}
          className="studio-doc__page"
          data-studio-source="doc"
          data-testid="studio-doc-canvas"
          role="img"
          aria-label={t('studio.doc.canvas', { name: doc.name, n: pageNo })}
        />
      ) : (
        <div className="studio-empty">
          <span className="studio-empty__icon">
            <StudioIcon name="doc" size={40} />
          </span>
          <h2>{t('studio.doc.emptyTitle')}</h2>
          <p>{t('studio.doc.emptyText')}</p>
          <Button onClick={pick} loading={loading} data-testid="studio-doc-open">
            <StudioIcon name="folder" size={18} />
            {t('studio.doc.choose')}
          </Button>
        </div>
      )}
      {loading && doc ? (
        <div className="studio-doc__loading" role="status">
          <span className="spinner" aria-hidden="true" /> {t('studio.doc.loading')}
        </div>
      ) : null}
    </div>
  );

  const controls = (
    <div className="studio-doc-controls">
      <input
        ref={inputRef}
        type="file"
        accept={PDF_TYPE}
        hidden
        data-testid="studio-doc-input"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (file) void choose(file);
        }}
      />
      <button type="button" className="studio-chip" onClick={pick} disabled={loading} data-testid="studio-doc-choose">
        <StudioIcon name="folder" size={18} />
        {doc ? t('studio.doc.change') : t('studio.doc.choose')}
      </button>
      {doc ? (
        <StudioPager
          page={pageNo}
          total={pages}
          onPage={go}
          label={doc.name}
          text={t('studio.doc.page', { n: pageNo, total: pages })}
          prevLabel={t('studio.doc.prev')}
          nextLabel={t('studio.doc.next')}
          testId="studio-doc"
        />
      ) : null}
    </div>
  );

  return { surface, controls };
}
