from typing import Any, List

import torch

class PipelineOutput:
    frames: List[List[Any]]

class DiffusionPipeline:
    @classmethod
    def from_pretrained(cls, name: str, torch_dtype: torch.dtype = ...) -> DiffusionPipeline: ...
    def to(self, device: str) -> DiffusionPipeline: ...
    def __call__(self, prompt: str, num_frames: int = ..., generator: torch.Generator = ...) -> PipelineOutput: ...
