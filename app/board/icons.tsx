/** Toolbar icons: small inline SVG line drawings (24 x 24), coloured by the text colour. */
const PATHS = {
  choose: 'M5 3l13 7-6 1.5L9.5 18z',
  brush: 'M4 20c2 0 3-1 3-3 0-1.5 1-2.5 2.5-2.5S12 15.5 12 17M9.5 14.5L19 5l1.5 1.5-9.5 9.5',
  eraser: 'M8 20h12M5 15l9-9 5 5-9 9H9z M10 10l5 5',
  shape: 'M4 20l5-9 5 9z M14 4h6v6h-6z',
  text: 'M5 6V4h14v2M12 4v16M9 20h6',
  image: 'M4 5h16v14H4z M4 16l5-5 4 4 3-3 4 4 M15 9.5a1.5 1.5 0 1 0 0.01 0',
  delete: 'M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13',
  phone: 'M8 3h8v18H8z M11 18h2 M4 8V5h2 M20 8V5h-2',
  background:
    'M12 3a9 9 0 1 0 0 18c1 0 1.5-.8 1.5-1.5 0-1.2-1-1.5-1-2.5s.8-1.5 2-1.5H17a4 4 0 0 0 4-4c0-4.7-4-8.5-9-8.5z M7.5 11.5h.01 M10 7.5h.01 M15 7.5h.01',
  power: 'M12 3l7 3v5c0 4.5-3 8-7 10-4-2-7-5.5-7-10V6z M9 12l2 2 4-4',
  undo: 'M9 14L4 9l5-5M4 9h11a5 5 0 0 1 0 10h-3',
  redo: 'M15 14l5-5-5-5M20 9H9a5 5 0 0 0 0 10h3',
  prev: 'M15 5l-7 7 7 7',
  next: 'M9 5l7 7-7 7',
  hide: 'M6 9l6 6 6-6',
  show: 'M6 15l6-6 6 6',
  zoomIn: 'M11 4a7 7 0 1 0 0.01 0M16 16l4 4M8 11h6M11 8v6',
  zoomOut: 'M11 4a7 7 0 1 0 0.01 0M16 16l4 4M8 11h6',
  colour: 'M12 4a8 8 0 1 0 0.01 0',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name }: { name: IconName }) {
  return (
    <svg className="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
