"""state shared by server processes: rate-limit hits, and a board version per benchmark for the board cache"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "rate_limit_hits",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("hits", sa.JSON(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    with op.batch_alter_table("rate_limit_hits", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_rate_limit_hits_expires_at"), ["expires_at"], unique=False)

    with op.batch_alter_table("benchmarks", schema=None) as batch_op:
        batch_op.add_column(sa.Column("board_version", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("benchmarks", schema=None) as batch_op:
        batch_op.drop_column("board_version")

    with op.batch_alter_table("rate_limit_hits", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_rate_limit_hits_expires_at"))

    op.drop_table("rate_limit_hits")
