/**
 * PUT /api/v1/uploads/{videoId}?token=…: the upload URL minted by upload-url. The signed token is
 * the credential (no X-API-Key). The body streams into the blob store and is never held whole in
 * memory.
 */
import { Type } from 'typebox';
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { UploadPutResponse } from '../../schemas/sessions.js';

export const putUploadRoute: RouteModule = (app, { deps }) => {
  // In this plugin only: leave every body unparsed so that the handler can stream it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  app.put(
    '/api/v1/uploads/:videoId',
    {
      config: { auth: false },
      schema: {
        operationId: 'putUpload',
        tags: ['Uploads'],
        summary: 'Upload the clip bytes (the uploadUrl of upload-url)',
        description:
          'Send the raw clip bytes with `Content-Type` equal to the contentType declared in upload-url. No X-API-Key: the signed `token` query parameter is the credential. Missing or tampered token: 401 unauthorized; expired: 403 forbidden; already used: 409 conflict; another Content-Type: 415 unsupported_media_type; more bytes than maxBytes: 413 payload_too_large (nothing is kept). A PUT that fails leaves nothing behind and can be retried with the same URL until it expires — one whose client hangs up mid-body too: the server notices the closed connection at once, so the retry is accepted at once; while another PUT to the URL is streaming: 409 conflict with Retry-After. A successful PUT uses the URL up.',
        security: [],
        params: Type.Object({ videoId: Type.String({ minLength: 1, maxLength: 64 }) }),
        // No length bound here: an over-long token is a tampered one (401), checked by the signer.
        querystring: Type.Object({ token: Type.Optional(Type.String()) }),
        response: {
          200: UploadPutResponse,
          ...errorResponses(
            'validation_failed',
            'unauthorized',
            'forbidden',
            'not_found',
            'conflict',
            'payload_too_large',
            'unsupported_media_type',
          ),
        },
      },
    },
    (request) => {
      const lengthHeader = request.headers['content-length'];
      const contentLength =
        lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
      return deps.services.uploadReceiver.receive(
        request.params.videoId,
        request.query.token,
        request.headers['content-type'],
        contentLength,
        request.raw,
      );
    },
  );
};
