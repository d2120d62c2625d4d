function(){if(this.tagName!=='SELECT'||this.multiple)return null;return {i:this.selectedIndex,o:[...this.options].slice(0,64).map(o=>[String(o.label).slice(0,200),o.disabled])}}
