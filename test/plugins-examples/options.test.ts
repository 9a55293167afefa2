import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatProblem, loadBots } from "../../src/config/index.ts";

const dir = mkdtempSync(join(tmpdir(), "postbot-plugin-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One bot file per problem: `bot validate`'s lines for the lot, without the folder. */
async function validate(files: Record<string, string>): Promise<string[]> {
  for (const [name, plugins] of Object.entries(files)) {
    writeFileSync(
      join(dir, `${name}.yaml`),
      `name: ${name}\nplan: pro\ntriggers: { mentions: {}, followers: {} }\nplugins:\n${plugins}`,
    );
  }
  const { problems } = await loadBots({ botsDir: relative(process.cwd(), dir), pluginsDir: "plugins", env: {} });
  return problems.map(formatProblem).map((p) => p.replace(`${dir}/`, ""));
}

describe("the example plugins' options, as bot validate reports them", () => {
  it("names the file, line, column and option, the bad value and what is allowed", async () => {
    const lines = await validate({
      "reply-placeholder": `  reply:\n    text: "Hi @{auhtor.username}!"\n`,
      "reply-list": `  reply:\n    text:\n      - "Hi {author.name}"\n      - "Bye {user.name}"\n`,
      "reply-missing": `  reply:\n    events: [mention]\n`,
      "reply-event": `  reply:\n    text: hi\n    events: [mention, follow]\n`,
      "reply-key": `  reply:\n    txt: hi\n`,
      "welcome-placeholder": `  welcome-dm:\n    text: "Welcome {author.username}"\n`,
      "like-tags": `  like:\n    tags: []\n`,
      "follow-negative": `  follow-back:\n    min_followers: -1\n`,
      "schedule-zone": `  schedule-post:\n    timezone: Europe/Atlantis\n    posts: { morning: "Hi on {date}" }\n`,
      "schedule-empty": `  schedule-post:\n    posts: {}\n`,
      "schedule-placeholder": `  schedule-post:\n    posts:\n      morning: ["ok {time}", "bad {hour}"]\n`,
      "moderate-threshold": `  moderate:\n    threshold: 2\n`,
      "moderate-zero": `  moderate:\n    threshold: 0\n`,
      "moderate-hide": `  moderate:\n    hide: sometimes\n`,
      "moderate-block": `  moderate:\n    block: ["crypto giveaway", "  "]\n`,
      "moderate-allow": `  moderate:\n    allow: nice\n`,
    });
    const placeholders = "{author.username}, {author.name}, {post.text}, {post.body}, {post.id}";
    const defaultThreshold = "0.5, the default, hides threats, slurs, insults and harassment";
    expect(lines).toEqual([
      "follow-negative.yaml:6:20 plugins.follow-back.min_followers: -1 is negative; use 0 or more (0 follows everyone back)",
      "like-tags.yaml:6:5 plugins.like.tags: needs at least one tag; leave tags out to act on every rule",
      "moderate-allow.yaml:6:12 plugins.moderate.allow: expected a list of words or phrases (- item lines)",
      "moderate-block.yaml:6:32 plugins.moderate.block[1]: must be a word or phrase; remove the empty entry from block",
      'moderate-hide.yaml:6:11 plugins.moderate.hide: "sometimes" is not allowed; use one of "abusive", "flagged", "never"',
      `moderate-threshold.yaml:6:16 plugins.moderate.threshold: 2 is too high: use at most 1; ${defaultThreshold}`,
      `moderate-zero.yaml:6:16 plugins.moderate.threshold: 0 is too low: use a number above 0 (0 would hide every reply); ${defaultThreshold}`,
      'reply-event.yaml:7:23 plugins.reply.events[1]: "follow" is not allowed; use one of "mention", "reply", "dm"',
      "reply-key.yaml:5:3 plugins.reply.text: is required; give the reply (a text or a list of texts)",
      'reply-key.yaml:6:5 plugins.reply.txt: unknown key; did you mean "text"? Allowed here: text, events',
      `reply-list.yaml:8:9 plugins.reply.text[1]: unknown placeholder {user.name}; the placeholders here are ${placeholders}`,
      "reply-missing.yaml:5:3 plugins.reply.text: is required; give the reply (a text or a list of texts)",
      `reply-placeholder.yaml:6:11 plugins.reply.text: unknown placeholder {auhtor.username}; the placeholders here are ${placeholders}`,
      "schedule-empty.yaml:6:5 plugins.schedule-post.posts: is empty; give each schedule name (from triggers.schedule) the text to post",
      "schedule-placeholder.yaml:7:30 plugins.schedule-post.posts.morning[1]: unknown placeholder {hour}; the placeholders here are {date}, {time}, {weekday}, {schedule}",
      'schedule-zone.yaml:6:15 plugins.schedule-post.timezone: unknown time zone "Europe/Atlantis": use an IANA name such as Europe/Berlin or UTC',
      "welcome-placeholder.yaml:6:11 plugins.welcome-dm.text: unknown placeholder {author.username}; the placeholders here are {user.username}, {user.name}",
    ]);
  });
});
