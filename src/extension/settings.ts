// Every `waveScope.*` setting the editor integration reads, in one place, with its default. The
// contributions (type, scope, markdownDescription) are in package.json; test/extension/settings.test.ts
// keeps the two in step.
import * as vscode from 'vscode';
import { AGENT_CLIS_FOR_SETTINGS } from './hookTargets';
import type { HookTarget } from './hookTargets';

/** How the Explorer and editor tabs mark files: owners (letter and colour) and contested files, or contested files only. */
export type DecorationStyle = 'owners' | 'contested';
/** How a file outside every scope of the active wave is marked. */
export type OutsideScopeHint = 'dim' | 'badge' | 'off';
/** Whether paths compare ignoring case: as git's core.ignorecase says, or forced. */
export type IgnoreCaseSetting = 'auto' | 'on' | 'off';

function section(name: string, scope?: vscode.ConfigurationScope): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(`waveScope.${name}`, scope);
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

export const settings = {
  /** `waveScope.decorations.enabled`: any marks at all. */
  decorationsEnabled: (): boolean => section('decorations').get<boolean>('enabled', true),
  /** `waveScope.decorations.style`. */
  decorationStyle: (): DecorationStyle => oneOf(section('decorations').get('style'), ['owners', 'contested'], 'owners'),
  /** `waveScope.decorations.outsideScope`. */
  outsideScope: (): OutsideScopeHint => oneOf(section('decorations').get('outsideScope'), ['dim', 'badge', 'off'], 'dim'),
  /** `waveScope.decorations.draftWaves`: also mark (and report) contested files of waves the manifest does not name. */
  draftWaves: (): boolean => section('decorations').get<boolean>('draftWaves', false),
  /** `waveScope.plan.ignoreCase`. */
  ignoreCase: (scope?: vscode.ConfigurationScope): IgnoreCaseSetting => oneOf(section('plan', scope).get('ignoreCase'), ['auto', 'on', 'off'], 'auto'),
  /** `waveScope.plan.stateDirectory`: `auto` or one of the state directories. */
  stateDirectory: (scope?: vscode.ConfigurationScope): string => section('plan', scope).get<string>('stateDirectory', 'auto'),
  /** `waveScope.hooks.install`: the targets Install Hooks preselects (`detected`: every agent CLI the repository uses). */
  hookTargets: (scope?: vscode.ConfigurationScope): (HookTarget | 'detected')[] => {
    const value = section('hooks', scope).get<unknown>('install', ['detected', 'git']);
    const allowed: readonly string[] = [...AGENT_CLIS_FOR_SETTINGS, 'git', 'detected'];
    return Array.isArray(value) ? (value.filter((item) => typeof item === 'string' && allowed.includes(item)) as (HookTarget | 'detected')[]) : ['detected', 'git'];
  },
};

/**
 * The settings that decide how a folder's plan on disk is read: the state directory it is read from and the
 * case rule its paths compare with. A change of one is a change of the plan on disk (PlannerPanels).
 */
const PLAN_READING_SETTINGS = ['waveScope.plan.stateDirectory', 'waveScope.plan.ignoreCase'] as const;

/** Whether a configuration change touches a setting that decides how the plan of `scope` is read. */
export function affectsPlanReading(event: vscode.ConfigurationChangeEvent, scope: vscode.ConfigurationScope): boolean {
  return PLAN_READING_SETTINGS.some((name) => event.affectsConfiguration(name, scope));
}

/** Whether a configuration change touches any setting the editor marks depend on. */
export function affectsMarks(event: vscode.ConfigurationChangeEvent): boolean {
  return ['waveScope.decorations', 'waveScope.plan', 'waveScope.planner.includeUntracked'].some((name) => event.affectsConfiguration(name));
}
