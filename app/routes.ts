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
  route('download/:type', 'routes/download.tsx'),
  route('h5down', 'routes/mobile-download.tsx', { id: 'h5down' }),
  route('phonedown', 'routes/mobile-download.tsx', { id: 'phonedown' }),
  route('dev/outbox', 'routes/dev-outbox.tsx'),
  // Every refusal of a classroom, without an account (ADR 091).
  route('refused/:kind', 'routes/refused.tsx'),
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
