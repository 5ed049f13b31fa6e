import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// The class tools (issue 30, ADR 113): state held per class (rooms.id), so a closed class keeps
// it for its report and the room's next class starts empty.
// - class_tools: one row per class: which quiz and poll are on the screens, the timer, the
//   buzzer's round (its win is one conditional update), the last random pick.
// - quizzes / quiz_answers: one answer per (quiz, user), so a duplicate counts once.
// - polls / poll_ballots / poll_counts: a ballot says only that someone voted; for an anonymous
//   poll its `voter` is HMAC(voter_key, user id) and voter_key is wiped when the poll closes, and
//   what was chosen is only ever added to poll_counts, never stored with a ballot.
// - tool_rewards: trophies per user in the class.
const ddl = `
    create table class_tools (
      room_id bigint primary key references rooms(id) on delete cascade,
      quiz_id text,
      poll_id text,
      timer_kind text check (timer_kind in ('countdown', 'stopwatch')),
      timer_running boolean not null default false,
      timer_duration_ms integer not null default 0,
      timer_elapsed_ms integer not null default 0,
      timer_started_at timestamptz,
      buzzer_round integer not null default 0,
      buzzer_status text check (buzzer_status in ('open', 'won')),
      buzzer_winner bigint references users(id) on delete set null,
      buzzer_won_at timestamptz,
      pick_user bigint references users(id) on delete set null,
      pick_at timestamptz
    );

    create table quizzes (
      id text primary key,
      room_id bigint not null references rooms(id) on delete cascade,
      options smallint not null check (options between 2 and 8),
      multiple boolean not null,
      correct text not null,
      show_own boolean not null,
      status text not null check (status in ('open', 'collected', 'published')),
      started_at timestamptz not null,
      ends_at timestamptz,
      rewarded_at timestamptz
    );
    create index quizzes_room on quizzes (room_id, started_at);

    create table quiz_answers (
      quiz_id text not null references quizzes(id) on delete cascade,
      user_id bigint not null references users(id) on delete cascade,
      choice text not null,
      answered_at timestamptz not null,
      primary key (quiz_id, user_id)
    );

    create table polls (
      id text primary key,
      room_id bigint not null references rooms(id) on delete cascade,
      anonymous boolean not null,
      status text not null check (status in ('open', 'closed', 'published')),
      questions jsonb not null,
      voter_key text,
      started_at timestamptz not null
    );
    create index polls_room on polls (room_id, started_at);

    create table poll_ballots (
      poll_id text not null references polls(id) on delete cascade,
      voter text not null,
      answers jsonb,
      primary key (poll_id, voter)
    );

    create table poll_counts (
      poll_id text not null references polls(id) on delete cascade,
      question smallint not null,
      option smallint not null,
      n integer not null,
      primary key (poll_id, question, option)
    );

    create table tool_rewards (
      room_id bigint not null references rooms(id) on delete cascade,
      user_id bigint not null references users(id) on delete cascade,
      count integer not null,
      primary key (room_id, user_id)
    )
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
