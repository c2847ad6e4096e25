"""Not vendored: the one name ``vlmeval/utils/matching_util.py`` imports from VLMEvalKit's ``smp`` package,
so the original file runs unchanged in the tests."""

import logging


def get_logger(name):
    return logging.getLogger(name)
