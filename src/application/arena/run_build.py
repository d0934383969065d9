"""Run a build job (spec B2, B9): the upload's source from the files store, built in the
sandbox into a scratch directory, the artefact moved into the store; the verdict names
it. What runs this is whoever takes build jobs: the web process itself by default, a
`noitu arena worker` with NOITU_ARENA_QUEUE=saq.

An artefact the store has no room for is said in the verdict (`store_full`: the
upload is refused). A sandbox that cannot run at all, or a source the files store
cannot hand over, raises (the server's failure, not the bot's): the job fails and the
upload answers `build_unavailable`.
"""

from __future__ import annotations

from noitu.application.arena.errors import StorageFull
from noitu.application.arena.jobs import BuildJob, BuildVerdict
from noitu.application.arena.ports import BotBuilder
from noitu.application.arena.storage import ArenaFiles


class RunBuild:
    def __init__(self, files: ArenaFiles, builder: BotBuilder) -> None:
        self._files = files
        self._builder = builder

    async def __call__(self, job: BuildJob) -> BuildVerdict:
        artefact: str | None = None
        async with self._files.scratch() as scratch:
            built = await self._builder.build(
                await self._files.local_source(job.source),
                job.language,
                scratch / "artefact",
                shown_as=job.shown_as,
            )
            if built.ok and built.artefact is not None:
                try:
                    artefact = await self._files.put_artefact(job.bot_id, built.artefact.directory)
                except StorageFull:
                    return BuildVerdict(ok=False, artefact=None, messages="", store_full=True)
        return BuildVerdict(
            ok=artefact is not None, artefact=artefact, messages=built.messages, limit=built.limit
        )
