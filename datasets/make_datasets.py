"""Regenerate the sampled datasets in this folder (deterministic: fixed seeds).

    python datasets/make_datasets.py

asia.csv and alarm.csv are 10,000 rows forward-sampled from pgmpy's bundled
copies of the asia (Lauritzen & Spiegelhalter 1988) and alarm (Beinlich et al.
1989) networks; pgmpy reads them offline.
"""

import os
import warnings

from pgmpy.sampling import BayesianModelSampling
from pgmpy.utils import get_example_model

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    warnings.simplefilter("ignore", FutureWarning)
    for name, seed in (("asia", 0), ("alarm", 1)):
        network = get_example_model(name)
        sample = BayesianModelSampling(network).forward_sample(
            size=10_000, seed=seed, show_progress=False
        )
        sample[list(network.nodes())].to_csv(os.path.join(HERE, f"{name}.csv"), index=False)
        print(name, sample.shape)
