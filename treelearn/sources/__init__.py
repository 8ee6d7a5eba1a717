"""The one place that recognises the input kind (DataFrame, CSV/Parquet path, Dask,
scipy.sparse, an encoded Table) and turns it into statistics; files in chunks and Dask
partitions are counted here, never fitted.
"""
