/**
 * forwardToController: runs locally on the active controller and for
 * requests that came in on a controller listener; elsewhere forwards, and
 * while the forward fails (no leader known, connection errors) or the
 * answer says NOT_CONTROLLER, sends it again until an answer without it.
 * The channel here is a scripted stand-in for the network: each call
 * returns the next scripted outcome.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { forwardToController, NoActiveControllerError, type ControllerChannel } from '../../../../src/broker/controller-channel.js';
import type { RequestContext } from '../../../../src/broker/request-context.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../../../../src/protocol/messages/19-create-topics.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';

const api = { request: CreateTopicsRequest, response: CreateTopicsResponse };
const request = { topics: [{ name: 't', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false };
const answer = (errorCode: number) => ({ throttleTimeMs: 0, topics: [{ name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', errorCode, errorMessage: null, numPartitions: 1, replicationFactor: 1, configs: [] }] });

type Outcome = { answer: number } | { error: Error };

function scripted(outcomes: Outcome[], local = false): ControllerChannel & { calls: number } {
  const channel = {
    calls: 0,
    isLocal: () => local,
    activeControllerId: () => 2,
    isControllerListener: (name: string) => name === 'CONTROLLER',
    forward: () => {
      const next = outcomes[channel.calls++];
      if (next === undefined) throw new Error('more forwards than scripted');
      return 'error' in next ? Promise.reject(next.error) : Promise.resolve(answer(next.answer));
    },
  };
  return channel as unknown as ControllerChannel & { calls: number };
}

function ctx(channel: ControllerChannel, listenerName = 'PLAINTEXT'): RequestContext {
  return { apiKey: 19, apiVersion: 5, listenerName, logger: pino({ level: 'silent' }), services: { cluster: { channel, lifecycle: null } } } as unknown as RequestContext;
}

const errorResponse = (code: number) => answer(code);

describe('forwardToController', () => {
  it('runs locally on the active controller and on controller listeners', async () => {
    assert.equal(await forwardToController(ctx(scripted([], true)), api, request, errorResponse), null);
    const channel = scripted([]);
    assert.equal(await forwardToController(ctx(channel, 'CONTROLLER'), api, request, errorResponse), null);
    assert.equal(channel.calls, 0);
  });

  it('waits through an election: failed forwards and NOT_CONTROLLER answers are sent again', async () => {
    const channel = scripted([{ error: new NoActiveControllerError() }, { error: new Error('connection reset') }, { answer: ErrorCode.NOT_CONTROLLER }, { answer: ErrorCode.NONE }]);
    const res = await forwardToController(ctx(channel), api, request, errorResponse);
    assert.equal(channel.calls, 4);
    assert.equal(res?.topics[0]?.errorCode, ErrorCode.NONE);
  });

  it('passes other answers through unchanged, errors included', async () => {
    const channel = scripted([{ answer: ErrorCode.TOPIC_ALREADY_EXISTS }]);
    const res = await forwardToController(ctx(channel), api, request, errorResponse);
    assert.equal(channel.calls, 1);
    assert.equal(res?.topics[0]?.errorCode, ErrorCode.TOPIC_ALREADY_EXISTS);
  });
});
