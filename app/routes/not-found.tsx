import { data } from 'react-router';

/** Unknown addresses render the root error boundary's 'page not found'. */
export function loader() {
  throw data(null, { status: 404 });
}

export default function NotFound() {
  return null;
}
