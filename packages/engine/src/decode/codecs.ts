/** Which codecs the FFmpeg binary in use can decode (`ffmpeg -codecs`, "D" flag). */
import { runProcess } from './run-process.js';

export async function listDecodableCodecs(ffmpegPath: string, signal?: AbortSignal): Promise<Set<string>> {
  const { stdout } = await runProcess(ffmpegPath, ['-hide_banner', '-codecs'], { timeoutMs: 15_000, signal });
  const codecs = new Set<string>();
  for (const line of stdout.split('\n')) {
    // " DEV.LS h264   H.264 / AVC …": flags, then the codec name.
    const m = /^ ([D.])([E.])V\S* +(\S+)/.exec(line);
    if (m && m[1] === 'D' && m[3]) codecs.add(m[3]);
  }
  return codecs;
}
