import { stem } from '../../agents/task-terms';
import type { Candidate } from './candidate';
import { triggerClause, plainer, unique } from './phrasing';
import { linkedNotes, textField, type GenerateSource, type SourceNote } from './source';
import { plainText } from '../plain-text';
import { distinctiveTerms, joinList, stemsOf, wordsIn } from './words';

/** The body without its first `# ` title line, as plain words. */
function bodyText(note: SourceNote): string {
  const title = /^#[ \t]+(.*)$/m.exec(note.body);
  const body = title && title[1].trim() === note.title ? note.body.slice(0, title.index) + note.body.slice(title.index + title[0].length) : note.body;
  return plainText(body);
}

/** What a decision is about, in words of its body that are not in its title (nor in `alsoAvoid`). */
function topicOf(source: GenerateSource, note: SourceNote, alsoAvoid: string[] = []): string | null {
  const terms = distinctiveTerms(bodyText(note), source, stemsOf([note.title, ...note.aliases, ...alsoAvoid]));
  return terms.length >= 2 ? joinList(terms) : null;
}

const ofType = (source: GenerateSource, type: string) => source.notes.filter((n) => n.type === type);

/** A person's or project's name. */
function nameOf(note: SourceNote): string {
  return textField(note.frontmatter.name) ?? note.title;
}

/**
 * "What replaced decision X?": pairs of decisions where one supersedes the other (`superseded_by`
 * on the old one, or `replaces` on the new one). Gold: the newer decision; answer: its title.
 */
export function supersededBy(source: GenerateSource): Candidate[] {
  const pairs = new Map<string, { old: SourceNote; next: SourceNote }>();
  for (const decision of ofType(source, 'decision')) {
    const next = source.linkOf(decision.frontmatter.superseded_by, decision.path);
    if (next && next !== decision) pairs.set(`${decision.path}\n${next.path}`, { old: decision, next });
    const old = source.linkOf(decision.frontmatter.replaces, decision.path);
    if (old && old !== decision) pairs.set(`${old.path}\n${decision.path}`, { old, next: decision });
  }
  return [...pairs.values()].map(({ old, next }) => ({
    template: 'superseded-by',
    kind: 'template',
    phrasings: unique([
      `What replaced the decision "${old.title}"?`,
      `What was decided instead of "${old.title}"?`,
      plainer(`Which decision took the place of "${old.title}"?`),
    ]),
    gold: [next.path],
    answers: [next.title],
  }));
}

/** The project a decision is for, when its `project` link leads to a note. */
function projectOf(source: GenerateSource, decision: SourceNote): SourceNote | null {
  return source.linkOf(decision.frontmatter.project, decision.path);
}

/**
 * "What was decided for project P about T?", T in words of the decision's body (not its title).
 * Gold: the decision; answer: its title.
 */
export function projectDecision(source: GenerateSource): Candidate[] {
  const out: Candidate[] = [];
  for (const decision of ofType(source, 'decision')) {
    const project = projectOf(source, decision);
    if (!project) continue;
    const name = nameOf(project);
    const topic = topicOf(source, decision, [name]);
    if (!topic) continue;
    out.push({
      template: 'project-decision',
      kind: 'template',
      phrasings: unique([`What was decided for ${name} about ${topic}?`, `What did ${name} decide about ${topic}?`]),
      gold: [decision.path],
      answers: [decision.title],
    });
  }
  return out;
}

/**
 * "Who owns P?", P described by its summary's (else its body's) words, not its name. Gold: the
 * project note; answer: the owner's name.
 */
export function owner(source: GenerateSource): Candidate[] {
  const out: Candidate[] = [];
  for (const project of ofType(source, 'project')) {
    const person = source.linkOf(project.frontmatter.owner, project.path);
    if (!person) continue;
    const avoid = stemsOf([project.title, nameOf(project), ...project.aliases, nameOf(person)]);
    const summary = textField(project.frontmatter.summary);
    const terms = summary ? distinctiveTerms(summary, source, avoid) : [];
    const described = terms.length >= 2 ? terms : distinctiveTerms(bodyText(project), source, avoid);
    if (described.length < 2) continue;
    const about = joinList(described);
    out.push({
      template: 'owner',
      kind: 'template',
      phrasings: unique([`Who owns the project about ${about}?`, `Who is in charge of the work on ${about}?`]),
      gold: [project.path],
      answers: [nameOf(person)],
    });
  }
  return out;
}

/** A word as tasks are compared: lowercase, lightly stemmed, "retries" meeting "retry". */
function termKey(word: string): string {
  return stem(word.toLowerCase().replace(/ies$/, 'y'));
}

/** A session's start as milliseconds (NaN when it has none). */
function startOf(session: SourceNote): number {
  const value = session.frontmatter.started;
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/**
 * "Which session last worked on T?", T a project (its name) or two words that the tasks of two or
 * more sessions share. Gold: the latest session (by `started`) on it; answer: its date.
 */
export function lastSession(source: GenerateSource): Candidate[] {
  const sessions = ofType(source, 'session')
    .filter((s) => Number.isFinite(startOf(s)))
    .sort((a, b) => startOf(b) - startOf(a) || (a.path < b.path ? -1 : 1));
  const out: Candidate[] = [];
  const answerOf = (session: SourceNote) => [String(session.frontmatter.started).slice(0, 10)];
  const latestByProject = new Map<SourceNote, SourceNote>();
  for (const session of sessions) {
    const project = source.linkOf(session.frontmatter.project, session.path);
    if (project && !latestByProject.has(project)) latestByProject.set(project, session);
  }
  for (const [project, session] of latestByProject) {
    out.push({
      template: 'last-session',
      kind: 'template',
      phrasings: [`Which session last worked on ${nameOf(project)}?`, `When did an agent last work on ${nameOf(project)}?`],
      gold: [session.path],
      answers: answerOf(session),
    });
  }
  // A topic several sessions' tasks share (two words of the latest one's task), so "last" matters.
  const taskStems = new Map(sessions.map((s) => [s, new Set(wordsIn(textField(s.frontmatter.task) ?? '').map(termKey))]));
  const asked = new Set<string>();
  for (const session of sessions) {
    const terms = distinctiveTerms(textField(session.frontmatter.task) ?? '', source, new Set(), 4);
    let pair: string[] | null = null;
    for (let i = 0; i < terms.length && !pair; i += 1) {
      for (let j = i + 1; j < terms.length && !pair; j += 1) {
        const wanted = [termKey(terms[i]), termKey(terms[j])];
        const sharing = sessions.filter((s) => wanted.every((w) => taskStems.get(s)?.has(w)));
        if (sharing.length >= 2 && sharing[0] === session) pair = [terms[i], terms[j]];
      }
    }
    const key = pair?.map(termKey).sort().join(' ');
    if (!pair || !key || asked.has(key)) continue;
    asked.add(key);
    out.push({
      template: 'last-session',
      kind: 'template',
      phrasings: unique([plainer(`Which session last worked on ${joinList(pair)}?`), `Which session last worked on ${joinList(pair)}?`]),
      gold: [session.path],
      answers: answerOf(session),
    });
  }
  return out;
}

/** "Which skill applies when <trigger>?", the trigger in plainer words. Gold: the skill; answer: its name. */
export function skillTrigger(source: GenerateSource): Candidate[] {
  const out: Candidate[] = [];
  for (const skill of ofType(source, 'skill')) {
    if (skill.frontmatter.status === 'archived' || skill.frontmatter.merged_into) continue;
    const trigger = textField(skill.frontmatter.trigger);
    if (!trigger) continue;
    const clause = triggerClause(trigger);
    if (clause.split(' ').length < 2) continue;
    out.push({
      template: 'skill-trigger',
      kind: 'template',
      phrasings: unique([
        plainer(`Which skill applies when ${clause}?`),
        `Which skill applies when ${clause}?`,
        plainer(`What procedure do I follow when ${clause}?`),
      ]),
      gold: [skill.path],
      answers: [nameOf(skill)],
    });
  }
  return out;
}

/**
 * Two hops, person → project → decision: "What did the project <person> works on decide about T?"
 * (a person's `projects`, or the projects they own). Gold: the decision; answer: its title.
 */
export function twoHop(source: GenerateSource): Candidate[] {
  const projectsOf = new Map<SourceNote, SourceNote[]>();
  const add = (person: SourceNote, project: SourceNote) => {
    const list = projectsOf.get(person) ?? [];
    if (!list.includes(project)) list.push(project);
    projectsOf.set(person, list);
  };
  for (const person of ofType(source, 'person')) {
    for (const project of linkedNotes(source, person.frontmatter.projects, person.path)) if (project.type === 'project') add(person, project);
  }
  for (const project of ofType(source, 'project')) {
    const person = source.linkOf(project.frontmatter.owner, project.path);
    if (person?.type === 'person') add(person, project);
  }
  const decisionsOf = new Map<SourceNote, SourceNote[]>();
  for (const decision of ofType(source, 'decision')) {
    const project = projectOf(source, decision);
    if (project) decisionsOf.set(project, [...(decisionsOf.get(project) ?? []), decision]);
  }
  const out: Candidate[] = [];
  for (const [person, projects] of projectsOf) {
    for (const project of projects) {
      for (const decision of decisionsOf.get(project) ?? []) {
        const topic = topicOf(source, decision, [nameOf(project), ...project.aliases]);
        if (!topic) continue;
        out.push({
          template: 'two-hop',
          kind: 'template',
          phrasings: unique([
            `What did the project ${nameOf(person)} works on decide about ${topic}?`,
            `What was decided about ${topic} in ${nameOf(person)}'s project?`,
          ]),
          gold: [decision.path],
          answers: [decision.title],
        });
      }
    }
  }
  return out;
}

/** The templates over typed notes, in template order. */
export const TYPED_TEMPLATES: readonly ((source: GenerateSource) => Candidate[])[] = [supersededBy, projectDecision, owner, lastSession, skillTrigger, twoHop];
