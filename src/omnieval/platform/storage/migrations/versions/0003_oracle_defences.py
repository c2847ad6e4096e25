"""score-oracle defences: per-benchmark policy, account approval, the client and answer fingerprint of each
submission and the probe detector's flag"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    with op.batch_alter_table("benchmarks", schema=None) as batch_op:
        batch_op.add_column(sa.Column("policy", sa.JSON(), nullable=True))
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("approved", sa.Boolean(), server_default=sa.true(), nullable=False))
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("fingerprint", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("flag", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("flag")
        batch_op.drop_column("fingerprint")
        batch_op.drop_column("client")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("approved")
    with op.batch_alter_table("benchmarks", schema=None) as batch_op:
        batch_op.drop_column("policy")
