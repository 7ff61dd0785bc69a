/**
 * The judging page's stage: the two clips of a pair side by side (stacked on a phone), played as
 * one — play, pause, scrub and loop move both — and the next pair's clips already loading out of
 * sight, so that after a vote the next pair starts at once (the same <video> elements move into
 * place: React keeps keyed elements, and their buffered bytes with them).
 */
import { useCallback, useEffect, useRef, useState } from 'react';

export interface StageClip {
  clipId: string;
  src: string;
}

export interface StagePair {
  offerId: string;
  left: StageClip;
  right: StageClip;
}

/** Whole seconds as m:ss. */
const clock = (s: number): string =>
  Number.isFinite(s) ? `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}` : '0:00';

/**
 * The stage for `current` with `next` preloading. `onStarted(ms)` reports, once per pair, how long
 * after the pair was put on the stage both of its clips were playing (the page shows it to tests).
 */
export function JudgeStage(props: {
  current: StagePair;
  next: StagePair | null;
  onStarted?: (offerId: string, ms: number) => void;
}) {
  const { current, next, onStarted } = props;
  const videos = useRef(new Map<string, HTMLVideoElement>());
  const [playing, setPlaying] = useState(true);
  const [loop, setLoop] = useState(true);
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);
  const shownAt = useRef(performance.now());
  const reported = useRef<string | null>(null);

  const pairVideos = useCallback((): HTMLVideoElement[] => {
    const out: HTMLVideoElement[] = [];
    for (const clip of [current.left, current.right]) {
      const v = videos.current.get(clip.clipId);
      if (v) out.push(v);
    }
    return out;
  }, [current]);

  const longest = useCallback(
    () => Math.max(0, ...pairVideos().map((v) => (Number.isFinite(v.duration) ? v.duration : 0))),
    [pairVideos],
  );

  const playBoth = useCallback(() => {
    for (const v of pairVideos()) {
      if (v.ended || v.currentTime >= v.duration) v.currentTime = 0;
      void v.play().catch(() => undefined);
    }
    setPlaying(true);
  }, [pairVideos]);

  const pauseBoth = useCallback(() => {
    for (const v of pairVideos()) v.pause();
    setPlaying(false);
  }, [pairVideos]);

  const seekBoth = useCallback(
    (t: number) => {
      for (const v of pairVideos())
        v.currentTime = Math.min(t, Number.isFinite(v.duration) ? Math.max(0, v.duration - 0.001) : t);
      setTime(t);
    },
    [pairVideos],
  );

  // A new pair on the stage: both from the start, playing; the preloaded pair paused at 0.
  useEffect(() => {
    shownAt.current = performance.now();
    setTime(0);
    setDuration(longest());
    for (const [clipId, v] of videos.current) {
      const onStage = clipId === current.left.clipId || clipId === current.right.clipId;
      if (!onStage) {
        v.pause();
        if (v.currentTime !== 0) v.currentTime = 0;
      }
    }
    playBoth();
  }, [current.offerId]);

  // Report when both clips of the pair are playing (once per pair).
  useEffect(() => {
    const both = pairVideos();
    const check = () => {
      if (reported.current === current.offerId) return;
      if (both.length === 2 && both.every((v) => !v.paused && v.readyState >= 3)) {
        reported.current = current.offerId;
        onStarted?.(current.offerId, performance.now() - shownAt.current);
      }
    };
    for (const v of both) {
      v.addEventListener('playing', check);
      v.addEventListener('canplay', check);
    }
    check();
    return () => {
      for (const v of both) {
        v.removeEventListener('playing', check);
        v.removeEventListener('canplay', check);
      }
    };
  }, [current.offerId, pairVideos, onStarted]);

  // The scrub bar follows the clips; at the end of the longer one, both start again (loop).
  useEffect(() => {
    let frame = 0;
    const tick = () => {
      const both = pairVideos();
      if (both.length > 0) {
        const d = longest();
        setDuration(d);
        setTime(Math.max(...both.map((v) => v.currentTime)));
        const finished = both.every(
          (v) => v.ended || (Number.isFinite(v.duration) && v.currentTime >= v.duration - 0.05),
        );
        if (finished && d > 0) {
          if (loop) {
            for (const v of both) v.currentTime = 0;
            for (const v of both) void v.play().catch(() => undefined);
          } else setPlaying(false);
        }
      }
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [pairVideos, longest, loop]);

  // Space plays or pauses both (the answer keys are the page's).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== ' ' || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (
        target &&
        /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(target.tagName) &&
        target.getAttribute('type') !== 'range'
      )
        return;
      e.preventDefault();
      if (playing) pauseBoth();
      else playBoth();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [playing, playBoth, pauseBoth]);

  const slots: Array<{ clip: StageClip; slot: 'left' | 'right' | 'preload' }> = [
    { clip: current.left, slot: 'left' },
    { clip: current.right, slot: 'right' },
    ...(next
      ? [
          { clip: next.left, slot: 'preload' as const },
          { clip: next.right, slot: 'preload' as const },
        ]
      : []),
  ];

  return (
    <div className="judge-stage-wrap">
      <div className="judge-stage" data-testid="judge-stage">
        {slots.map(({ clip, slot }) => (
          <figure
            key={clip.clipId}
            className={`judge-slot judge-slot-${slot}`}
            aria-hidden={slot === 'preload' ? true : undefined}
          >
            <video
              ref={(el) => {
                if (el) videos.current.set(clip.clipId, el);
                else videos.current.delete(clip.clipId);
              }}
              src={clip.src}
              muted
              playsInline
              preload="auto"
              onLoadedMetadata={() => setDuration(longest())}
              onClick={() => (playing ? pauseBoth() : playBoth())}
              aria-label={slot === 'preload' ? undefined : `${slot === 'left' ? 'Left' : 'Right'} clip`}
              data-testid={slot === 'preload' ? 'preload-player' : `player-${slot}`}
              data-clip-id={clip.clipId}
              tabIndex={-1}
            />
            {slot !== 'preload' && <figcaption>{slot === 'left' ? 'Left' : 'Right'}</figcaption>}
          </figure>
        ))}
      </div>
      <div className="judge-controls" role="group" aria-label="Both players">
        <button
          type="button"
          className="secondary"
          onClick={(e) => {
            e.currentTarget.blur();
            if (playing) pauseBoth();
            else playBoth();
          }}
        >
          {playing ? 'Pause' : 'Play'} <kbd>Space</kbd>
        </button>
        <input
          type="range"
          aria-label="Position in both clips"
          min={0}
          max={duration || 0}
          step={0.01}
          value={Math.min(time, duration || 0)}
          onChange={(e) => seekBoth(Number(e.target.value))}
        />
        <span className="muted judge-clock" aria-hidden="true">
          {clock(time)} / {clock(duration)}
        </span>
        <label className="check">
          <input type="checkbox" checked={loop} onChange={(e) => setLoop(e.target.checked)} /> Loop
        </label>
      </div>
    </div>
  );
}
