/*
 * connect_types.c — spark.connect.DataType from cs_col_type (connect_types.h). Each kind's
 * message is made from its descriptor (every leaf kind is a message with only a type variation
 * reference), so one table gives the kind and the descriptor of each primitive type id.
 */
#include "connect/connect_types.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "spark/connect/types.pb-c.h"

static void *new_message(const ProtobufCMessageDescriptor *d)
{
    ProtobufCMessage *m = cs_xmalloc(d->sizeof_message);
    d->message_init(m);
    return m;
}

static const struct {
    cs_type_id id;
    Spark__Connect__DataType__KindCase kind;
    const ProtobufCMessageDescriptor *desc;
} leaves[] = {
    {CS_TYPE_NULL, SPARK__CONNECT__DATA_TYPE__KIND_NULL,
     &spark__connect__data_type__null__descriptor},
    {CS_TYPE_BOOLEAN, SPARK__CONNECT__DATA_TYPE__KIND_BOOLEAN,
     &spark__connect__data_type__boolean__descriptor},
    {CS_TYPE_BYTE, SPARK__CONNECT__DATA_TYPE__KIND_BYTE,
     &spark__connect__data_type__byte__descriptor},
    {CS_TYPE_SHORT, SPARK__CONNECT__DATA_TYPE__KIND_SHORT,
     &spark__connect__data_type__short__descriptor},
    {CS_TYPE_INT, SPARK__CONNECT__DATA_TYPE__KIND_INTEGER,
     &spark__connect__data_type__integer__descriptor},
    {CS_TYPE_LONG, SPARK__CONNECT__DATA_TYPE__KIND_LONG,
     &spark__connect__data_type__long__descriptor},
    {CS_TYPE_FLOAT, SPARK__CONNECT__DATA_TYPE__KIND_FLOAT,
     &spark__connect__data_type__float__descriptor},
    {CS_TYPE_DOUBLE, SPARK__CONNECT__DATA_TYPE__KIND_DOUBLE,
     &spark__connect__data_type__double__descriptor},
    {CS_TYPE_STRING, SPARK__CONNECT__DATA_TYPE__KIND_STRING,
     &spark__connect__data_type__string__descriptor},
    {CS_TYPE_BINARY, SPARK__CONNECT__DATA_TYPE__KIND_BINARY,
     &spark__connect__data_type__binary__descriptor},
    {CS_TYPE_DATE, SPARK__CONNECT__DATA_TYPE__KIND_DATE,
     &spark__connect__data_type__date__descriptor},
    {CS_TYPE_TIMESTAMP, SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP,
     &spark__connect__data_type__timestamp__descriptor},
    {CS_TYPE_TIMESTAMP_NTZ, SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP_NTZ,
     &spark__connect__data_type__timestamp_ntz__descriptor},
    {CS_TYPE_INTERVAL_CAL, SPARK__CONNECT__DATA_TYPE__KIND_CALENDAR_INTERVAL,
     &spark__connect__data_type__calendar_interval__descriptor},
};

Spark__Connect__DataType *cs_connect_data_type(const cs_col_type *t)
{
    Spark__Connect__DataType *dt = new_message(&spark__connect__data_type__descriptor);
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++)
        if (leaves[i].id == t->id) {
            dt->kind_case = leaves[i].kind;
            dt->null = new_message(leaves[i].desc); /* every union member is a pointer */
            if (cs_col_type_is_collated(t))         /* DataType.String.collation: its name */
                dt->string->collation = cs_xstrdup(cs_collation_name(t->collation));
            return dt;
        }
    if (cs_col_type_is_variant(t)) {
        dt->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_VARIANT;
        dt->variant = new_message(&spark__connect__data_type__variant__descriptor);
        return dt;
    }
    switch (t->id) {
    case CS_TYPE_DECIMAL: {
        Spark__Connect__DataType__Decimal *d =
            new_message(&spark__connect__data_type__decimal__descriptor);
        d->_precision_case = SPARK__CONNECT__DATA_TYPE__DECIMAL___PRECISION_PRECISION;
        d->precision = t->precision;
        d->_scale_case = SPARK__CONNECT__DATA_TYPE__DECIMAL___SCALE_SCALE;
        d->scale = t->scale;
        dt->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_DECIMAL;
        dt->decimal = d;
        break;
    }
    case CS_TYPE_INTERVAL_YM: {
        Spark__Connect__DataType__YearMonthInterval *y =
            new_message(&spark__connect__data_type__year_month_interval__descriptor);
        y->_start_field_case =
            SPARK__CONNECT__DATA_TYPE__YEAR_MONTH_INTERVAL___START_FIELD_START_FIELD;
        y->start_field = t->precision;
        y->_end_field_case = SPARK__CONNECT__DATA_TYPE__YEAR_MONTH_INTERVAL___END_FIELD_END_FIELD;
        y->end_field = t->scale;
        dt->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_YEAR_MONTH_INTERVAL;
        dt->year_month_interval = y;
        break;
    }
    case CS_TYPE_INTERVAL_DT: {
        Spark__Connect__DataType__DayTimeInterval *d =
            new_message(&spark__connect__data_type__day_time_interval__descriptor);
        d->_start_field_case =
            SPARK__CONNECT__DATA_TYPE__DAY_TIME_INTERVAL___START_FIELD_START_FIELD;
        d->start_field = t->precision;
        d->_end_field_case = SPARK__CONNECT__DATA_TYPE__DAY_TIME_INTERVAL___END_FIELD_END_FIELD;
        d->end_field = t->scale;
        dt->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_DAY_TIME_INTERVAL;
        dt->day_time_interval = d;
        break;
    }
    case CS_TYPE_ARRAY: {
        Spark__Connect__DataType__Array *a =
            new_message(&spark__connect__data_type__array__descriptor);
        a->element_type = cs_connect_data_type(t->fields[0].type);
        a->contains_null = t->fields[0].nullable;
        dt->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_ARRAY;
        dt->array = a;
        break;
    }
    case CS_TYPE_MAP: {
        Spark__Connect__DataType__Map *m = new_message(&spark__connect__data_type__map__descriptor);
        m->key_type = cs_connect_data_type(t->fields[0].type);
        m->value_type = cs_connect_data_type(t->fields[1].type);
        m->value_contains_null = t->fields[1].nullable;
        dt->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_MAP;
        dt->map = m;
        break;
    }
    case CS_TYPE_STRUCT: {
        Spark__Connect__DataType__Struct *s =
            new_message(&spark__connect__data_type__struct__descriptor);
        s->n_fields = (size_t)t->n_fields;
        s->fields = t->n_fields ? cs_xcalloc((size_t)t->n_fields, sizeof *s->fields) : NULL;
        for (int i = 0; i < t->n_fields; i++) {
            Spark__Connect__DataType__StructField *f =
                new_message(&spark__connect__data_type__struct_field__descriptor);
            f->name = cs_xstrdup(t->fields[i].name ? t->fields[i].name : "");
            f->data_type = cs_connect_data_type(t->fields[i].type);
            f->nullable = t->fields[i].nullable;
            s->fields[i] = f;
        }
        dt->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_STRUCT;
        dt->struct_ = s;
        break;
    }
    default: /* every id is covered above; an unknown one reads as null */
        dt->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_NULL;
        dt->null = new_message(&spark__connect__data_type__null__descriptor);
        break;
    }
    return dt;
}
