import { redirect } from 'react-router';

/** /create opens the lobby, where classrooms are created. */
export function loader() {
  return redirect('/');
}
