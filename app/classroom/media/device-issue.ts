/**
 * The device-exception view's rules (docs/product/02-live-classroom.md §4, ADR 101), kept apart
 * from React and the media client so they can be tested as a table: which problem shows when two
 * arrive, which device it names, and what the person can do about it.
 */
import type { DeviceProblem } from './devices.ts';

/** The device a problem is about: the microphone, the camera, or both / either. */
export type IssueSource = 'mic' | 'camera' | 'both';

export interface DeviceIssue {
  problem: DeviceProblem;
  source: IssueSource;
}

/** The source a getUserMedia kind stands for. */
export function sourceOfKind(kind: 'audio' | 'video' | 'both'): IssueSource {
  return kind === 'audio' ? 'mic' : kind === 'video' ? 'camera' : 'both';
}

/**
 * The issue to show when `next` arrives while `prev` shows. A refused permission is the cause of
 * everything else, so it stays; no camera and no microphone together are 'no devices'; the same
 * problem on the other device names both; otherwise the newer one (the person acts on it first).
 */
export function mergeIssue(prev: DeviceIssue | null, next: DeviceIssue): DeviceIssue {
  if (!prev) return next;
  if (prev.problem === 'denied' && next.problem !== 'denied') return prev;
  const pair = new Set([prev.problem, next.problem]);
  if (pair.has('noWebcam') && pair.has('noMicrophone')) return { problem: 'noDevices', source: 'both' };
  if (prev.problem === next.problem && prev.source !== next.source) return { problem: next.problem, source: 'both' };
  return next;
}

/** What the view offers for a problem: retry always; the permission steps for a refusal; Devices where another device may help. */
export function issueActions(problem: DeviceProblem): { retry: true; permissionHelp: boolean; chooseDevice: boolean } {
  return {
    retry: true,
    permissionHelp: problem === 'denied',
    chooseDevice:
      problem === 'occupied' ||
      problem === 'resolution' ||
      problem === 'unplugged' ||
      problem === 'deviceUpdate' ||
      problem === 'deviceError',
  };
}

/** The sources a retry opens again for an issue. */
export function retrySources(issue: DeviceIssue | null): Array<'mic' | 'camera'> {
  if (!issue || issue.source === 'both') return ['mic', 'camera'];
  return [issue.source];
}
