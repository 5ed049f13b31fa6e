import { type RouteConfig, index, route } from '@react-router/dev/routes';

export default [
  index('routes/lobby.tsx'),
  route('login', 'routes/login.tsx'),
  route('create', 'routes/create.tsx'),
  route('userName/:id', 'routes/user-name.tsx'),
  route('profile', 'routes/profile.tsx', [
    index('routes/profile._index.tsx'),
    route('room', 'routes/profile.room.tsx'),
    route('personal', 'routes/profile.personal.tsx'),
    route('payment', 'routes/profile.payment.tsx'),
    route('message', 'routes/profile.message.tsx'),
    route('feedback', 'routes/profile.feedback.tsx'),
    route('device', 'routes/profile.device.tsx'),
    route('book', 'routes/profile.book.tsx'),
    route('record', 'routes/profile.record.tsx'),
  ]),
  route('home', 'routes/home.tsx'),
  route('help/:topic', 'routes/help.tsx'),
  route('admin', 'routes/admin.tsx'),
  // `/download` opens the download page of the visitor's system (ADR 103).
  route('download/:type?', 'routes/download.tsx'),
  route('h5down', 'routes/mobile-download.tsx', { id: 'h5down' }),
  route('phonedown', 'routes/mobile-download.tsx', { id: 'phonedown' }),
  route('dev/outbox', 'routes/dev-outbox.tsx'),
  // Every refusal of a classroom, without an account (ADR 091).
  route('refused/:kind', 'routes/refused.tsx'),
  // After leaving a class: rejoin or home, without an account (ADR 098).
  route('left/:id', 'routes/left.tsx'),
  // The board of a named user (its own user draws, others watch) and /room/{id} (ADR 094).
  route('wb/:id/:uid', 'routes/wb-user.tsx', { id: 'wb-user' }),
  route('imwb/:id/:uid', 'routes/wb-user.tsx', { id: 'imwb' }),
  route('room/:id', 'routes/room.tsx'),
  // Demo rooms without an account (ADR 092).
  route('createDemo', 'routes/create-demo.tsx'),
  route('demo/:id', 'routes/demo.tsx'),
  // The slide view of a room, without a seat (ADR 093).
  route('ppt/:id', 'routes/ppt.tsx', { id: 'ppt' }),
  route('ppt/:id/:uid', 'routes/ppt.tsx', { id: 'ppt-user' }),
  // Classroom routes: one module, several addresses (docs/product/decisions.md invite paths).
  route(':id', 'routes/classroom.tsx', { id: 'classroom' }),
  route('record/:id', 'routes/classroom.tsx', { id: 'classroom-record' }),
  route('live/:id', 'routes/classroom.tsx', { id: 'classroom-live' }),
  route('bb/:id', 'routes/classroom.tsx', { id: 'classroom-bb' }),
  route('wb/:id', 'routes/classroom.tsx', { id: 'classroom-wb' }),
  route('rec/:id', 'routes/studio.tsx'),
  route('upload/:userId/:id', 'routes/board-upload.tsx'),
  route('wbreview/:id', 'routes/wbreview.tsx'),
  // A shared recording, watched without an account (the token is the permission).
  route('watch/:token', 'routes/watch.tsx'),
  route('*', 'routes/not-found.tsx'),
] satisfies RouteConfig;
