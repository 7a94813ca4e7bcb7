// A kafkajs group member in its own process, for kafkajs-group.test.ts: the
// test SIGKILLs it to simulate a crash, so the broker has to expire its
// session. Not a test file (the runner only picks *.test.js).
//
// Usage: node dist/test/compat/groups/kafkajs-member.js '{"bootstrap":..,"topic":..,"groupId":..,"member":..}'
// Prints JSON lines (stdout writes to a pipe are synchronous on Linux, so
// every line printed before the SIGKILL arrives):
//   {"ev":"assign","member":..,"memberId":..,"generationId":n,"partitions":[..]}
//   {"ev":"join","memberId":..,"memberAssignment":{..}}
//   {"ev":"rec","member":..,"partition":p,"offset":o,"value":..}
//   {"ev":"log","line":..}
// SIGTERM disconnects (leaving the group) and exits 0.
import { runKafkajsMember } from '../../helpers/groups-kafkajs.js';

interface Args {
  bootstrap: string;
  topic: string;
  groupId: string;
  member: string;
}

const emit = (obj: Record<string, unknown>): void => {
  process.stdout.write(JSON.stringify(obj) + '\n');
};

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const consumer = await runKafkajsMember({
  bootstrap: args.bootstrap,
  topic: args.topic,
  groupId: args.groupId,
  member: args.member,
  hooks: {
    onAssignment: (a) => emit({ ev: 'assign', ...a }),
    onGroupJoin: (p) => emit({ ev: 'join', memberId: p.memberId, memberAssignment: p.memberAssignment }),
    onLog: (line) => emit({ ev: 'log', line }),
  },
  onMessage: (p) => emit({ ev: 'rec', ...p }),
});
const stop = (): void => {
  consumer
    .disconnect()
    .catch(() => undefined)
    .finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
// Bounded: never outlive a test run by much.
setTimeout(stop, 180_000).unref();
